# The Python-free layers (docs/ARCHITECTURE.md), a static library each, linked one way:
# report -> analysis -> journal -> util, and embed's Python-free plan over journal. Each sees the
# public headers (include/) and its own folder's private ones; tools/check_layers.py holds the
# include order. Also built alone for the fuzzers (IMPORTSCOPE_FUZZ).
configure_file(${PROJECT_SOURCE_DIR}/include/importscope/version.hpp.in
               ${PROJECT_BINARY_DIR}/include/importscope/version.hpp @ONLY)

add_library(importscope_util STATIC
  ${CMAKE_CURRENT_LIST_DIR}/util/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/console.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/destination.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/redact.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/redact_shapes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/run_program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/host.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/utf8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/json_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/keep_until_exit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/util/process_facts.cpp)
target_include_directories(importscope_util PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)

add_library(importscope_journal STATIC
  ${CMAKE_CURRENT_LIST_DIR}/journal/event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/frame_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/record_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/dump.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/event_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/run_layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/shared_journal.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/problem_channel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/journal/tail.cpp)
target_link_libraries(importscope_journal PUBLIC importscope_util)

add_library(importscope_embed_plan STATIC
  ${CMAKE_CURRENT_LIST_DIR}/embed/worker_plan.cpp)
target_link_libraries(importscope_embed_plan PUBLIC importscope_journal)

add_library(importscope_analysis STATIC
  ${CMAKE_CURRENT_LIST_DIR}/analysis/model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/duplicate_extension_init.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/analyze.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/finders.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/live_findings.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/partial_alias.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/native_type_conflict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/installations.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/failed_loads.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/known_issues.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/untraced.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/task_launchers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/root_causes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/environment_reads.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/scan_facts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/static_findings.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis/conclusions.cpp)
target_link_libraries(importscope_analysis PUBLIC importscope_journal)

add_library(importscope_report STATIC
  ${CMAKE_CURRENT_LIST_DIR}/report/report_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/scan_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/report_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/render_markdown.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/render_junit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/render_dot.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/render_sarif.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/sarif_rules.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/markdown_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/escape.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/gate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/outcome.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/merge.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/redact_paths.cpp)
target_link_libraries(importscope_report PUBLIC importscope_analysis)

set(IMPORTSCOPE_PYTHON_FREE_LAYERS importscope_util importscope_journal importscope_embed_plan importscope_analysis
    importscope_report)
foreach(layer IN LISTS IMPORTSCOPE_PYTHON_FREE_LAYERS)
  target_include_directories(${layer} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
endforeach()
find_package(Threads REQUIRED)
target_link_libraries(importscope_util PUBLIC ${IMPORTSCOPE_FMT} nlohmann_json::nlohmann_json Threads::Threads)

