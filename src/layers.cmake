# The Python-free layers (docs/ARCHITECTURE.md), a static library each, linked one way:
# report -> analysis -> journal -> util, and embed's Python-free plan over journal. Each sees the
# public headers (include/) and its own folder's private ones; tools/check_layers.py holds the
# include order. Also built alone for the fuzzers (IMPORTSCOPE_FUZZ).
configure_file(${PROJECT_SOURCE_DIR}/include/importscope/version.hpp.in
               ${PROJECT_BINARY_DIR}/include/importscope/version.hpp @ONLY)

# A layer's static library: FILES of src/FOLDER/, linked to the layers it USES, seeing include/
# (through util) and its own folder's private headers.
function(importscope_add_layer name folder)
  cmake_parse_arguments(PARSE_ARGV 2 layer "" "" "FILES;USES")
  list(TRANSFORM layer_FILES PREPEND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${folder}/)
  add_library(${name} STATIC ${layer_FILES})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  target_link_libraries(${name} PUBLIC ${layer_USES})
endfunction()

importscope_add_layer(importscope_util util FILES
    error.cpp console.cpp atomic_file.cpp destination.cpp redact.cpp redact_shapes.cpp run_program.cpp
    host.cpp utf8.cpp json_writer.cpp keep_until_exit.cpp process_facts.cpp regular_file.cpp cache_dir.cpp)
target_include_directories(importscope_util PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)

importscope_add_layer(importscope_journal journal FILES
    event.cpp frame_table.cpp record_format.cpp dump.cpp event_record.cpp reader.cpp run_layout.cpp
    shared_journal.cpp problem_channel.cpp tail.cpp
  USES importscope_util)

importscope_add_layer(importscope_embed_plan embed FILES
    worker_plan.cpp
  USES importscope_journal)

importscope_add_layer(importscope_analysis analysis FILES
    model.cpp duplicate_extension_init.cpp analyze.cpp finders.cpp live_findings.cpp partial_alias.cpp
    native_type_conflict.cpp installations.cpp failed_loads.cpp known_issues.cpp untraced.cpp
    task_launchers.cpp root_causes.cpp environment_reads.cpp scan_facts.cpp static_findings.cpp
    conclusions.cpp evidence.cpp
  USES importscope_journal)

importscope_add_layer(importscope_report report FILES
    report_json.cpp scan_report.cpp report_writer.cpp summary.cpp reader.cpp render_markdown.cpp
    render_junit.cpp render_dot.cpp render_sarif.cpp sarif_rules.cpp markdown_text.cpp escape.cpp gate.cpp
    outcome.cpp compare.cpp merge.cpp redact_paths.cpp summary_count.cpp
  USES importscope_analysis)

set(IMPORTSCOPE_PYTHON_FREE_LAYERS importscope_util importscope_journal importscope_embed_plan importscope_analysis
    importscope_report)
find_package(Threads REQUIRED)
target_link_libraries(importscope_util PUBLIC ${IMPORTSCOPE_FMT} nlohmann_json::nlohmann_json Threads::Threads)

