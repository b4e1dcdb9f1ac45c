"""Compiles the children's sitecustomize.py into the bytecode of the interpreter that runs this.

Run by cmake/ImportscopePython.cmake: compile_bootstrap.py SOURCE PYC MINOR, where MINOR (311)
names the CPython minor the build wants the bytecode for; an interpreter of another minor is an
error. The bytecode is checked-hash (PEP 552): it holds the hash of the source rather than its
time, so an installed copy stays valid wherever pip or cmake put the files, and Python compiles
the source again if it is not the one hashed. Each Python child of a traced process then loads
the bootstrap without compiling it, also with -B or PYTHONDONTWRITEBYTECODE, or from a directory
it cannot write.
"""
import py_compile
import sys

source, pyc, minor = sys.argv[1:4]
mine = "%d%d" % sys.version_info[:2]
if mine != minor:
    sys.exit(f"compile_bootstrap.py: this is CPython {mine}, not the {minor} asked for")
py_compile.compile(source, cfile=pyc, dfile="sitecustomize.py", doraise=True,
                   invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
