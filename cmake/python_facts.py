"""Prints what importscope's build needs to know of one CPython, as a CMake list.

Run by cmake/ImportscopePython.cmake with the interpreter in question:
version;major;minor;include dir;extension suffix;shared libpython ('' for none);
stdlib extension directory;real path of the executable;ABI flags.
"""
import os
import sys
import sysconfig

config = sysconfig.get_config_vars()
libpython = ""
if config.get("Py_ENABLE_SHARED") and config.get("LIBDIR") and config.get("INSTSONAME"):
    candidate = os.path.join(config["LIBDIR"], config["INSTSONAME"])
    if os.path.exists(candidate):
        libpython = os.path.realpath(candidate)
abiflags = getattr(sys, "abiflags", "")
if config.get("Py_GIL_DISABLED") and "t" not in abiflags:
    abiflags += "t"
facts = [
    "%d.%d.%d" % sys.version_info[:3],
    str(sys.version_info[0]),
    str(sys.version_info[1]),
    sysconfig.get_paths()["include"],
    config.get("EXT_SUFFIX") or "",
    libpython,
    config.get("DESTSHARED") or "",
    os.path.realpath(sys.executable),
    abiflags,
]
print(";".join(fact.replace(";", "\\;") for fact in facts))
