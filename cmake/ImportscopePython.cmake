# What importscope builds once per CPython minor: the embedding worker (a module that the
# supervisor loads, after the target's own libpython, in the process that becomes the target) and
# the children's _importscope extension. Nothing here links libpython: the target's provides it.
#
# importscope_add_python(<interpreter>) reads the interpreter's facts (cmake/python_facts.py);
# importscope_add_python_headers(<include dir>) needs no interpreter, only a CPython's headers (the
# wheel's cross builds, IMPORTSCOPE_PYTHON_INCLUDES). Both add, under
# ${IMPORTSCOPE_RUNTIME_DIR}/cpython-<major>.<minor>/:
#   worker.so    the embedded main process (embed/ and hook/)
#   build.json   the facts of the build it was made with, the fallback for a static interpreter
#                (none from headers alone: such a build has no libpython to fall back on)
# and, in ${IMPORTSCOPE_BOOTSTRAP_DIR}, _importscope<EXT_SUFFIX>. They set, in the caller's scope,
# IMPORTSCOPE_LAST_TAG (cpython-3.11) and IMPORTSCOPE_LAST_EMBED (the object library of the worker).

set(IMPORTSCOPE_SUPPORTED_MINORS 10 11 12 13)

function(importscope_add_python interpreter)
  execute_process(
    COMMAND "${interpreter}" "${PROJECT_SOURCE_DIR}/cmake/python_facts.py"
    OUTPUT_VARIABLE facts OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE facts_status)
  if(NOT facts_status EQUAL 0)
    message(FATAL_ERROR "importscope: ${interpreter} does not run (IMPORTSCOPE_PYTHONS)")
  endif()
  list(GET facts 0 version)
  list(GET facts 1 major)
  list(GET facts 2 minor)
  list(GET facts 3 include_dir)
  list(GET facts 4 ext_suffix)
  list(GET facts 5 libpython)
  list(GET facts 6 dynload)
  list(GET facts 7 executable)
  list(LENGTH facts count)
  set(abiflags "")
  if(count GREATER 8)
    list(GET facts 8 abiflags)
  endif()
  if(abiflags MATCHES "t")
    message(FATAL_ERROR "importscope: ${interpreter} is a free-threaded CPython (${version}${abiflags}), which "
                        "importscope does not support yet")
  endif()
  importscope_check_minor("${major}" "${minor}" "${version} (${interpreter})")
  set(build_facts "{}")
  foreach(key version executable libpython dynload)
    string(REPLACE "\\" "\\\\" text "${${key}}")
    string(REPLACE "\"" "\\\"" text "${text}")
    string(JSON build_facts SET "${build_facts}" ${key} "\"${text}\"")
  endforeach()
  message(STATUS "importscope: worker for Python ${version} (${executable}), libpython ${libpython}")
  importscope_add_worker(${major} ${minor} "${include_dir}" "${ext_suffix}" "${build_facts}")
  importscope_add_bootstrap_bytecode("${interpreter}" ${major}${minor})
  importscope_forward_last()
endfunction()

# The children's sitecustomize.py as the bytecode of CPython <mm> (311), compiled by `interpreter`
# (cmake/compile_bootstrap.py) from the same bytes as the copy beside it, in the bootstrap's
# __pycache__: a Python child then loads it without compiling its source (about 2 M instructions
# a child, which -B or an unwritable directory would spend in every child).
function(importscope_add_bootstrap_bytecode interpreter mm)
  set(pyc ${IMPORTSCOPE_BOOTSTRAP_DIR}/__pycache__/sitecustomize.cpython-${mm}.pyc)
  add_custom_command(
    OUTPUT ${pyc}
    COMMAND "${interpreter}" -I -S ${PROJECT_SOURCE_DIR}/cmake/compile_bootstrap.py
            ${IMPORTSCOPE_SRC_DIR}/hook/bootstrap/sitecustomize.py ${pyc} ${mm}
    DEPENDS ${IMPORTSCOPE_SRC_DIR}/hook/bootstrap/sitecustomize.py ${PROJECT_SOURCE_DIR}/cmake/compile_bootstrap.py
    VERBATIM)
  add_custom_target(importscope_bootstrap_bytecode_${mm} ALL DEPENDS ${pyc})
  add_dependencies(importscope_bootstrap importscope_bootstrap_bytecode_${mm})
  install(FILES ${pyc} DESTINATION ${IMPORTSCOPE_INSTALL_LIBDIR}/bootstrap/__pycache__)
endfunction()

# A worker from a CPython's include directory alone: the version from its patchlevel.h, the
# extension suffix from the target processor (.cpython-311-aarch64-linux-gnu.so).
function(importscope_add_python_headers include_dir)
  set(patchlevel "${include_dir}/patchlevel.h")
  if(NOT EXISTS "${patchlevel}")
    message(FATAL_ERROR "importscope: ${include_dir} holds no CPython headers (no patchlevel.h; IMPORTSCOPE_PYTHON_INCLUDES)")
  endif()
  file(STRINGS "${patchlevel}" version_lines REGEX "^#define PY_(MAJOR|MINOR)_VERSION[ \t]")
  string(REGEX REPLACE ".*PY_MAJOR_VERSION[ \t]+([0-9]+).*" "\\1" major "${version_lines}")
  string(REGEX REPLACE ".*PY_MINOR_VERSION[ \t]+([0-9]+).*" "\\1" minor "${version_lines}")
  if(EXISTS "${include_dir}/pyconfig.h")
    file(STRINGS "${include_dir}/pyconfig.h" gil_disabled REGEX "^#define Py_GIL_DISABLED 1")
    if(gil_disabled)
      message(FATAL_ERROR "importscope: ${include_dir} is a free-threaded CPython's, which importscope does not support yet")
    endif()
  endif()
  importscope_check_minor("${major}" "${minor}" "${major}.${minor} (${include_dir})")
  set(ext_suffix ".cpython-${major}${minor}-${CMAKE_SYSTEM_PROCESSOR}-linux-gnu${CMAKE_SHARED_MODULE_SUFFIX}")
  message(STATUS "importscope: worker for Python ${major}.${minor} from the headers in ${include_dir}")
  importscope_add_worker(${major} ${minor} "${include_dir}" "${ext_suffix}" "")
  importscope_forward_last()
endfunction()

function(importscope_check_minor major minor described)
  if(NOT major EQUAL 3 OR NOT minor IN_LIST IMPORTSCOPE_SUPPORTED_MINORS)
    message(FATAL_ERROR "importscope: CPython ${described}; importscope supports 3.10 to 3.13")
  endif()
  if(TARGET importscope_embed_${major}${minor})
    message(FATAL_ERROR "importscope: two interpreters or include directories of Python ${major}.${minor} were named")
  endif()
endfunction()

macro(importscope_forward_last)
  set(IMPORTSCOPE_LAST_TAG ${IMPORTSCOPE_LAST_TAG} PARENT_SCOPE)
  set(IMPORTSCOPE_LAST_EMBED ${IMPORTSCOPE_LAST_EMBED} PARENT_SCOPE)
  set(IMPORTSCOPE_LAST_HOOKS ${IMPORTSCOPE_LAST_HOOKS} PARENT_SCOPE)
endmacro()

# The worker and the children's module of one minor; build_facts ("" for none) becomes build.json.
function(importscope_add_worker major minor include_dir ext_suffix build_facts)
  set(tag cpython-${major}.${minor})
  set(mm ${major}${minor})

  # The hooks and the interpreter's owner, compiled against this minor's headers.
  add_library(importscope_hooks_${mm} OBJECT ${IMPORTSCOPE_HOOK_SOURCES})
  add_library(importscope_embed_${mm} OBJECT
    ${IMPORTSCOPE_SRC_DIR}/hook/module.cpp
    ${IMPORTSCOPE_SRC_DIR}/embed/interpreter.cpp
    ${IMPORTSCOPE_SRC_DIR}/embed/worker.cpp)
  foreach(objects importscope_hooks_${mm} importscope_embed_${mm})
    target_include_directories(${objects} SYSTEM PUBLIC ${include_dir})
    target_include_directories(${objects} PUBLIC ${IMPORTSCOPE_SRC_DIR})
    target_link_libraries(${objects} PUBLIC importscope_embed_plan)
    set_target_properties(${objects} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  endforeach()

  # The worker: the supervisor's child dlopens it after libpython (RTLD_GLOBAL), so the Python
  # symbols stay undefined here. Only its entry point is exported (embed/worker.map).
  set(out_dir ${IMPORTSCOPE_RUNTIME_DIR}/${tag})
  add_library(importscope_worker_${mm} MODULE
    $<TARGET_OBJECTS:importscope_hooks_${mm}> $<TARGET_OBJECTS:importscope_embed_${mm}>)
  target_link_libraries(importscope_worker_${mm} PRIVATE importscope_embed_plan)
  target_link_options(importscope_worker_${mm} PRIVATE -Wl,--version-script=${IMPORTSCOPE_SRC_DIR}/embed/worker.map)
  set_target_properties(importscope_worker_${mm} PROPERTIES LINK_DEPENDS ${IMPORTSCOPE_SRC_DIR}/embed/worker.map)
  importscope_static_runtime(importscope_worker_${mm})
  set_target_properties(importscope_worker_${mm} PROPERTIES
    OUTPUT_NAME worker PREFIX "" SUFFIX ".so" LIBRARY_OUTPUT_DIRECTORY ${out_dir})
  if(build_facts)
    file(WRITE ${out_dir}/build.json "${build_facts}\n")
  endif()

  # The children's bootstrap module, loaded by each Python child's own interpreter.
  add_library(importscope_hook_module_${mm} MODULE
    $<TARGET_OBJECTS:importscope_hooks_${mm}> ${IMPORTSCOPE_SRC_DIR}/hook/module.cpp)
  target_compile_definitions(importscope_hook_module_${mm} PRIVATE IMPORTSCOPE_HOOK_EXTENSION)
  target_include_directories(importscope_hook_module_${mm} SYSTEM PRIVATE ${include_dir})
  target_include_directories(importscope_hook_module_${mm} PRIVATE ${IMPORTSCOPE_SRC_DIR})
  target_link_libraries(importscope_hook_module_${mm} PRIVATE importscope_journal)
  target_link_options(importscope_hook_module_${mm} PRIVATE -Wl,--version-script=${IMPORTSCOPE_SRC_DIR}/hook/module.map)
  set_target_properties(importscope_hook_module_${mm} PROPERTIES LINK_DEPENDS ${IMPORTSCOPE_SRC_DIR}/hook/module.map)
  importscope_static_runtime(importscope_hook_module_${mm})
  set_target_properties(importscope_hook_module_${mm} PROPERTIES
    OUTPUT_NAME _importscope PREFIX "" SUFFIX "${ext_suffix}"
    LIBRARY_OUTPUT_DIRECTORY ${IMPORTSCOPE_BOOTSTRAP_DIR}
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  add_dependencies(importscope_bootstrap importscope_worker_${mm} importscope_hook_module_${mm})

  install(TARGETS importscope_worker_${mm} LIBRARY DESTINATION ${IMPORTSCOPE_INSTALL_LIBDIR}/${tag})
  if(build_facts)
    install(FILES ${out_dir}/build.json DESTINATION ${IMPORTSCOPE_INSTALL_LIBDIR}/${tag})
  endif()
  install(TARGETS importscope_hook_module_${mm} LIBRARY DESTINATION ${IMPORTSCOPE_INSTALL_LIBDIR}/bootstrap)

  set(IMPORTSCOPE_LAST_TAG ${tag} PARENT_SCOPE)
  set(IMPORTSCOPE_LAST_EMBED importscope_embed_${mm} PARENT_SCOPE)
  set(IMPORTSCOPE_LAST_HOOKS importscope_hooks_${mm} PARENT_SCOPE)
endfunction()
