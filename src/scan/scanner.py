"""importscope scan's eyes: what an environment holds, read without running any of it.

Run by `importscope scan` with the interpreter it examines. Prints one JSON document (the facts,
docs/report-format.md "Scan facts") on stdout; importscope makes the findings from it. Source files
are read as bytes and only those a text prefilter picks are parsed, each at most once, with this
interpreter's own `ast`. Nothing scanned is imported or executed: the interpreter runs this file
with -I -S, so that no .pth file, sitecustomize, usercustomize or PYTHONPATH module of the examined
environment runs, and startup_path.py works out the sys.path that start-up would have built.
"""
import ast
import errno
import json
import os
import re
import stat
import sys
import sysconfig
import time

# startup_path.py is installed beside this file; run with -I, this file's directory is not on sys.path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup_path import read_regular, startup_path  # noqa: E402

del sys.path[0]

SKIPPED_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".tox", ".nox", "node_modules"}
EXTENSION_SUFFIX = re.compile(r"^(?!lib)[A-Za-z_][A-Za-z0-9_]*\.(?:(?:cpython-\d+[a-z]*(?:-[^.]*)?|abi3)\.)?so$")
SYS_MODULES_WRITE = re.compile(rb"modules\s*(?:\.setdefault|\.update|\[[^\]\n]*\]\s*=(?!=))")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
# A source file larger than this is not parsed: no real module comes near it, and ast of a larger
# one costs seconds and hundreds of MiB. Such a file is named, and the scan is incomplete.
SOURCE_LIMIT = 8 << 20


class Progress:
    """A line on the terminal, redrawn at most ten times a second."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.last = 0.0

    def show(self, text, force=False):
        now = time.monotonic()
        if self.enabled and (force or now - self.last > 0.1):
            self.last = now
            sys.stderr.write(f"\r\x1b[Kimportscope: scan: {text}")
            sys.stderr.flush()

    def done(self):
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def real(path):
    return os.path.realpath(path)


def stdlib_dirs():
    # sysconfig took sys.prefix when it was imported: a virtual environment's, set since, given.
    paths = sysconfig.get_paths(vars={"base": sys.prefix, "platbase": sys.exec_prefix})
    return {real(paths[key]) for key in ("stdlib", "platstdlib") if key in paths} | {
        real(os.path.join(paths.get("platstdlib", ""), "lib-dynload"))
    }


def environment_sys_path(startup):
    """sys.path as this interpreter has it at start-up (its own script's directory left out),
    each entry with where it came from; `startup` is what startup_path() worked out, since this
    process runs with -I -S and has none of it itself."""
    entries = [p for p in startup.path if p]
    site_dirs = {real(p) for p in startup.site_dirs}
    site_dirs.update(real(p) for p in entries if os.path.basename(p) in ("site-packages", "dist-packages"))
    from_pth = startup.pth_lines
    python_path = {real(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    stdlib = stdlib_dirs()
    described = []
    for entry in entries:
        path = real(entry)
        item = {"entry": entry, "path": path}
        if path in python_path:
            item["origin"] = "PYTHONPATH"
        elif path in from_pth:
            item["origin"] = ".pth"
            item["pth"] = {"file": from_pth[path][0], "line": from_pth[path][1]}
        elif path in site_dirs:
            item["origin"] = "site-packages"
        elif path in stdlib or path.endswith(".zip"):
            item["origin"] = "stdlib"
        else:
            item["origin"] = "start-up"
        described.append(item)
    return described


def is_extension(name):
    return EXTENSION_SUFFIX.search(name) is not None


def module_of(name):
    """The module name of a file name: "x.py" -> "x", "_C.cpython-311-x86_64-linux-gnu.so" -> "_C"."""
    return name.split(".", 1)[0]


def package_prefix(directory):
    """The dotted name under which Python imports the modules of `directory`, and a dot, when it is
    a regular package: "vllm.third_party." for site-packages/vllm/third_party, its parents being
    packages up to site-packages; "" for a directory that is none. A scan of a package's own
    directory names its modules as an import of them does."""
    names = []
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent, name = os.path.split(directory)
        if not IDENTIFIER.match(name) or parent == directory:
            break
        names.append(name)
        directory = parent
    return "".join(f"{name}." for name in reversed(names))


class Tree:
    """The files under the scanned roots: .py files and extensions, each real file once."""

    def __init__(self, progress, reader):
        self.progress = progress
        self.reader = reader
        self.sources = {}  # real path -> module name (from the first root that holds it)
        self.extensions = {}  # real path -> {"path", "module", "size", "root"}
        self.problems = []
        self.seen_dirs = set()

    def walk(self, root, as_package=False):
        """Every file under `root`. A sys.path entry's modules are named from it, as imports through
        it name them; `as_package`, for a PATH to scan, names those of a regular package's directory
        with the package's own name (package_prefix)."""
        root_real = real(root)
        if not os.path.isdir(root_real):
            name = os.path.basename(root_real)
            if name.endswith(".py") and os.path.isfile(root_real):
                self.sources.setdefault(root_real, name[:-3])
            elif name.endswith(".py"):
                self.reader.explain(root_real)
            else:
                self.problems.append(f"{root}: not a directory or a .py file, not scanned")
            return
        stack = [(root_real, package_prefix(root_real) if as_package else "", True)]
        while stack:
            directory, package, parent_regular = stack.pop()
            key = real(directory)
            if key in self.seen_dirs:
                continue
            self.seen_dirs.add(key)
            try:
                entries = list(os.scandir(directory))
            except OSError as e:
                self.reader.incomplete(directory, e.strerror or str(e))
                continue
            # Regular packages all the way from the root: else a namespace portion, which a regular
            # package of the same name elsewhere on sys.path hides.
            regular = not package or (parent_regular and any(e.name == "__init__.py" for e in entries))
            for entry in entries:
                name = entry.name
                try:
                    if entry.is_dir():
                        if name in SKIPPED_DIRS or name.startswith(".") or "." in name or "-" in name:
                            continue
                        stack.append((entry.path, f"{package}{name}.", regular))
                    elif name.endswith(".py"):
                        if not entry.is_file():  # a FIFO, a device, a dangling link: never opened
                            self.reader.explain(entry.path)
                            continue
                        path = real(entry.path)
                        if path not in self.sources:
                            stem = name[:-3]
                            self.sources[path] = package[:-1] if stem == "__init__" else package + stem
                    elif is_extension(name):
                        path = real(entry.path)
                        if path not in self.extensions:
                            self.extensions[path] = {
                                "path": path,
                                "module": package + module_of(name),
                                "size": entry.stat().st_size,
                                "root": root_real,
                                "regular": regular,
                            }
                except OSError:
                    continue
            self.progress.show(f"{len(self.sources)} source files, {len(self.extensions)} extensions")


def top_level_entries(path):
    """What a sys.path entry makes importable at the top: [{"name", "kind", "path"}]."""
    found = {}
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        name = entry.name
        try:
            if entry.is_dir():
                if IDENTIFIER.match(name) and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                    found.setdefault(name, {"name": name, "kind": "package", "path": real(entry.path)})
            elif name.endswith(".py") and IDENTIFIER.match(name[:-3]):
                found.setdefault(name[:-3], {"name": name[:-3], "kind": "module", "path": real(entry.path)})
            elif is_extension(name) and IDENTIFIER.match(module_of(name)):
                found.setdefault(module_of(name), {"name": module_of(name), "kind": "extension", "path": real(entry.path)})
        except OSError:
            continue
    return list(found.values())


def argument_top_level(path):
    """What a PATH to scan makes importable at the top, as a sys.path entry: nothing for a file,
    or for a regular package's directory, whose entries (its `__init__`, its subpackages) are the
    package's own modules, never top-level names that another directory's could shadow."""
    if not os.path.isdir(path) or package_prefix(path):
        return []
    return top_level_entries(path)


class Parser:
    """Each source file parsed at most once."""

    def __init__(self, reader):
        self.reader = reader
        self.trees = {}
        self.unparsable = []

    def parse(self, path, data=None):
        if path in self.trees:
            return self.trees[path]
        tree = None
        if data is None:
            data = self.reader.read(path)
            if data is None:
                self.trees[path] = None
                return None
        try:
            tree = ast.parse(data, filename=path)
        except (SyntaxError, ValueError, OSError, RecursionError, MemoryError) as e:
            self.unparsable.append({"file": path, "error": f"{type(e).__name__}: {e}"})
        self.trees[path] = tree
        return tree


def find_source(name, directories):
    """("source", file) of a module of the standard library's directories, by its path, or None."""
    relative = os.path.join(*name.split("."))
    for directory in directories:
        for candidate in (os.path.join(directory, relative, "__init__.py"), os.path.join(directory, relative + ".py")):
            if os.path.isfile(candidate):
                return ("source", candidate)
    return None


class Reader:
    """Reads source files: only regular files (opened without blocking, so a FIFO never waits for a
    writer, and checked with fstat), at most SOURCE_LIMIT bytes. What it cannot read is a problem
    naming the file, and, when it can hide a finding (the file exists and could not be read, or is
    too large to parse), in `unread`: the scan is incomplete, and exits 125 without a finding."""

    def __init__(self):
        self.problems = []
        self.unread = []  # [{"path", "error"}]
        self.named = set()

    def read(self, path):
        data = read_regular(path, SOURCE_LIMIT)
        if data is None and path not in self.named:
            self.explain(path)
        return data

    def explain(self, path):
        """Names why `path` is not read."""
        self.named.add(path)
        try:
            st = os.stat(path)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ELOOP):  # a dangling symlink: nothing python could import
                self.problems.append(f"{path} is a symlink to nothing: not read")
            else:
                self.incomplete(path, e.strerror or str(e))
            return
        if not stat.S_ISREG(st.st_mode):
            self.problems.append(f"{path} is not a regular file ({file_kind(st.st_mode)}): not read")
        elif st.st_size > SOURCE_LIMIT:
            self.incomplete(path, f"larger than {SOURCE_LIMIT >> 20} MiB, too large to parse")
        else:
            try:
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)))
                self.incomplete(path, "it changed while it was read")
            except OSError as e:
                self.incomplete(path, e.strerror or str(e))

    def incomplete(self, path, error):
        self.unread.append({"path": path, "error": error})
        self.problems.append(f"{path} could not be read: {error}; the scan is incomplete")


def file_kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def resolve_relative(module, is_package, level, name):
    """The absolute name of `from <level dots><name> import ...` in `module`, or None."""
    if level == 0:
        return name
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if name:
        base.append(name)
    return ".".join(base) or None


def dotted(node):
    """"a.b.c" for Name/Attribute chains, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def constant_string(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def key_prefix(node):
    """The constant start of a computed key: "deep_gemm." for "deep_gemm." + rest or f"deep_gemm.{rest}"."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return constant_string(node.left) or key_prefix(node.left)
    if isinstance(node, ast.JoinedStr) and node.values:
        return constant_string(node.values[0])
    return None


def scope_statements(body):
    """Every node of one scope, nested blocks included, the bodies of nested functions and classes
    not (their definitions are)."""
    pending = list(reversed(body))
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        pending.extend(reversed(list(ast.iter_child_nodes(node))))


def module_level(body):
    """The statements at a module's top, those in its if/try/with blocks included."""
    pending = list(reversed(body))
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)) or type(node).__name__ == "TryStar":
            for field in ("body", "orelse", "finalbody", "handlers"):
                pending.extend(reversed(getattr(node, field, [])))
        elif isinstance(node, ast.ExceptHandler):
            pending.extend(reversed(node.body))


class ModuleFacts:
    """What one module's syntax tree says about sys.modules writes and imports."""

    def __init__(self, path, module, tree, function_of=None):
        self.path = path
        self.module = module
        self.is_package = os.path.basename(path) == "__init__.py"
        self.tree = tree
        # function_of("a.b.f"): (the ModuleFacts of a.b, the FunctionDef of f) for a function of
        # another scanned module, or None.
        self.function_of = function_of or (lambda dotted_name: None)
        self.functions = {}
        self.sys_names = {"sys"}
        self.modules_names = set()
        self.import_module_names = {"import_module"}
        self._scopes = {}
        self._module_scope = None
        for node in module_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
            elif isinstance(node, ast.Import):
                self.sys_names.update(a.asname for a in node.names if a.name == "sys" and a.asname)
            elif isinstance(node, ast.ImportFrom) and node.module == "sys" and node.level == 0:
                self.modules_names.update(a.asname or a.name for a in node.names if a.name == "modules")

    def absolute(self, level, name):
        return resolve_relative(self.module, self.is_package, level, name)

    def bindings(self, body):
        """{local name: [("module", dotted name) | ("call", function name) | ("name", other name) |
        ("other", None), a value that is not a module]}."""
        bound = {}
        for node in scope_statements(body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        bound.setdefault(alias.asname, []).append(("module", alias.name))
                    else:
                        top = alias.name.split(".")[0]
                        bound.setdefault(top, []).append(("module", top))
            elif isinstance(node, ast.ImportFrom):
                base = self.absolute(node.level, node.module or "")
                if base:
                    for alias in node.names:
                        bound.setdefault(alias.asname or alias.name, []).append(("module", f"{base}.{alias.name}"))
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bound.setdefault(target.id, []).append(self.value_binding(node.value) or ("other", None))
        return bound

    def value_binding(self, value):
        if isinstance(value, ast.Call):
            target = self.import_module_target(value)
            if target:
                return ("module", target)
            if isinstance(value.func, ast.Name) and value.func.id in self.functions:
                return ("call", value.func.id)
            called = dotted(value.func)
            return ("call_of", called) if called else None
        name = dotted(value)
        return ("name", name) if name else None

    def import_module_target(self, call):
        func = call.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if called in self.import_module_names and call.args:
            name = constant_string(call.args[0])
            if name and name.startswith(".") and len(call.args) > 1:
                return None
            return name
        if called == "__import__" and call.args:
            return constant_string(call.args[0])
        return None

    def resolve(self, value, scopes, depth=0):
        """The modules `value` can be: a list of names, [] when it is not a module, None when unknown."""
        if depth > 4:
            return None
        binding = self.value_binding(value)
        if binding is None:
            return []
        return self.resolve_binding(binding, scopes, depth)

    def resolve_binding(self, binding, scopes, depth):
        kind, what = binding
        if kind == "other":
            return []
        if kind == "module":
            return [what]
        if kind == "call":
            return self.returns_of(self.functions[what], scopes[-1:], depth)
        if kind == "call_of":
            # A function that an import here names, defined in another scanned module (vLLM's
            # `from vllm.utils.deep_gemm import _import_deep_gemm`); any other call makes no module.
            elsewhere = self.imported_function(what, scopes)
            if elsewhere is None:
                return []
            facts, function = elsewhere
            return facts.returns_of(function, facts.scopes(None), depth)
        root, _, rest = what.partition(".")
        for scope in scopes:
            if root in scope:
                results = []
                for candidate in scope[root]:
                    found = self.resolve_binding(candidate, scopes, depth + 1)
                    if found is None:
                        return None
                    results.extend(f"{m}.{rest}" if rest else m for m in found)
                return results
        return None

    def returns_of(self, function, module_scopes, depth):
        """The modules that `function`, defined in this module, can return: as resolve()."""
        inner = [self.bindings(function.body)] + module_scopes
        results = []
        for node in scope_statements(function.body):
            if isinstance(node, ast.Return) and node.value is not None:
                if isinstance(node.value, ast.Constant) and node.value.value is None:
                    continue
                found = self.resolve(node.value, inner, depth + 1)
                if found is None:
                    return None
                results.extend(found)
        return results

    def imported_function(self, called, scopes):
        """(ModuleFacts, FunctionDef) of `called` ("f" or "mod.f"), a name that an import in
        `scopes` binds to a function of another scanned module; None when it is no such name."""
        root, _, rest = called.partition(".")
        for scope in scopes:
            if root in scope:
                imported = [what for kind, what in scope[root] if kind == "module"]
                if len(imported) != 1 or len(scope[root]) != 1:
                    return None  # bound more than once, or to something else: not followed
                return self.function_of(f"{imported[0]}.{rest}" if rest else imported[0])
        return None

    def is_sys_modules(self, node):
        if isinstance(node, ast.Attribute) and node.attr == "modules":
            return isinstance(node.value, ast.Name) and node.value.id in self.sys_names
        return isinstance(node, ast.Name) and node.id in self.modules_names

    def scopes(self, function):
        """Where a name used in `function` (None: the module's top) is looked up, made once each."""
        key = id(function)
        if key not in self._scopes:
            if self._module_scope is None:
                self._module_scope = self.bindings(self.tree.body)
            module_scope = self._module_scope
            self._scopes[key] = [module_scope] if function is None else [self.bindings(function.body), module_scope]
        return self._scopes[key]

    def sys_modules_writes(self):
        """Every write into sys.modules: (node, key, value, in a loop, the enclosing function node,
        the conditions it runs under). The conditions are the `if` and `try` statements around
        the write, or around its outermost loop, inside its function: [{"line", "text"}]."""
        pending = [(self.tree, None, False, ())]
        loops = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        while pending:
            node, function, in_loop, conditions = pending.pop()
            for key, value in self.writes_in(node):
                yield node, key, value, in_loop, function, [dict(c) for c in conditions]
            inner_loop = in_loop or isinstance(node, loops)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    pending.append((child, child, False, ()))
                else:
                    condition = None if inner_loop else condition_of(node, child)
                    pending.append((child, function, inner_loop, conditions + ((condition,) if condition else ())))

    def writes_in(self, node):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and self.is_sys_modules(target.value):
                    yield target.slice, node.value
        elif isinstance(node, ast.Call):
            call = node
            if isinstance(call.func, ast.Attribute) and self.is_sys_modules(call.func.value):
                if call.func.attr == "setdefault" and len(call.args) == 2:
                    yield call.args[0], call.args[1]
                elif call.func.attr == "update" and len(call.args) == 1 and isinstance(call.args[0], ast.Dict):
                    for key, value in zip(call.args[0].keys, call.args[0].values):
                        if key is not None:
                            yield key, value


def line_of(node):
    return getattr(node, "lineno", 0)


def condition_of(parent, child):
    """The condition under which `child`, a node directly in `parent`, runs, as
    (("line", N), ("text", "...")), or None when it runs whenever `parent` does."""
    def described(text):
        return (("line", line_of(parent)), ("text", text))

    if isinstance(parent, ast.If) and parent.test is not child:
        test = ast.unparse(parent.test) if hasattr(ast, "unparse") else "..."
        return described(f"if {test}" if child in parent.body else f"if not ({test})")
    if isinstance(parent, ast.Try):
        if child in parent.body:
            return described("in a try block, until a statement before it raises")
        if child in parent.orelse:
            return described("when the try block raised nothing")
    if isinstance(parent, ast.ExceptHandler) and child in parent.body:
        caught = ast.unparse(parent.type) if parent.type is not None and hasattr(ast, "unparse") else "an exception"
        return described(f"only when {caught} was raised")
    return None


class Scan:
    def __init__(self, roots, progress):
        self.roots = roots
        self.progress = progress
        self.reader = Reader()
        self.tree = Tree(progress, self.reader)
        self.parser = Parser(self.reader)
        self.by_name = {}
        self.stdlib = []
        self.prefiltered = 0
        self.problems = []
        self._facts = {}  # path -> ModuleFacts of a module whose functions an alias's value calls

    def facts_of(self, path, data=None, module=""):
        """The facts of a file of the scanned trees, or of the standard library's (named `module`)."""
        tree = self.parser.parse(path, data)
        if tree is None:
            return None
        return ModuleFacts(path, self.tree.sources.get(path, module), tree, self.function_of)

    def function_of(self, dotted_name):
        """(ModuleFacts, FunctionDef) of the function `dotted_name` ("pkg.mod.f") defined at the top
        of a scanned source module, or None."""
        module, _, name = dotted_name.rpartition(".")
        place = self.locate(module) if module else None
        if place is None or place[0] != "source":
            return None
        if place[1] not in self._facts:
            self._facts[place[1]] = self.facts_of(place[1], module=module)
        facts = self._facts[place[1]]
        function = facts.functions.get(name) if facts is not None else None
        return (facts, function) if function is not None else None

    def guarded(self, path, what, work):
        """work(), or None when it raised: a file that this scanner cannot handle becomes a problem
        that names it, and the rest is scanned."""
        try:
            return work()
        except Exception as error:  # noqa: BLE001: any error of the scanner's own, on any input
            self.problems.append(
                f"{path}: importscope's scanner failed on this file while {what} "
                f"({type(error).__name__}: {error}); the rest was scanned"
            )
            return None

    def locate(self, name):
        """("source" or "extension", file) of a module name in the scanned trees or the standard
        library, or None."""
        found = self.by_name.get(name)
        if found is None and self.stdlib:
            found = find_source(name, self.stdlib)
        return found

    def is_package(self, name):
        place = self.locate(name)
        return place is not None and os.path.basename(place[1]) == "__init__.py"

    def find_aliases(self):
        """Pass 1: every file whose text may write into sys.modules, parsed."""
        aliases, submodule_aliases = [], []
        for done, path in enumerate(self.tree.sources, 1):
            self.progress.show(f"{done}/{len(self.tree.sources)} files: sys.modules writes")
            data = self.reader.read(path)
            if data is None or not SYS_MODULES_WRITE.search(data):
                continue
            self.prefiltered += 1
            found = self.guarded(path, "reading its sys.modules writes", lambda: self.writes_of(path, data))
            if found is not None:
                aliases += found[0]
                submodule_aliases += found[1]
        return aliases, submodule_aliases

    def writes_of(self, path, data):
        """The aliases and the submodule-aliasing loops of one file."""
        aliases, submodule_aliases = [], []
        facts = self.facts_of(path, data)
        if facts is not None:
            for node, key, value, in_loop, function_node, conditions in facts.sys_modules_writes():
                function = function_node.name if function_node is not None else None
                name = constant_string(key)
                if name is None:
                    prefix = key_prefix(key)
                    if prefix and prefix.endswith(".") and in_loop:
                        submodule_aliases.append(
                            {"file": path, "line": line_of(node), "prefix": prefix, "function": function or "",
                             "conditions": conditions}
                        )
                    continue
                if name.startswith("__") and name.endswith("__"):
                    continue  # __main__, __mp_main__: a program's main module, not a package's name
                targets = facts.resolve(value, facts.scopes(function_node))
                if targets == []:
                    continue  # not a module: a stand-in object made here
                if targets is not None:
                    targets = sorted({t for t in targets if t != name})
                    if not targets:
                        continue  # the module under its own name
                aliases.append(
                    {
                        "file": path,
                        "line": line_of(node),
                        "alias": name,
                        "targets": targets,
                        "function": function,
                        "value": ast.unparse(value) if hasattr(ast, "unparse") else "",
                        "conditions": conditions,
                    }
                )
        return aliases, submodule_aliases

    def find_importers(self, alias_names, target_names=()):
        """Pass 2: every import of a submodule through an alias name, in files whose text names one;
        and, for each package in `target_names` (the aliased ones), the files whose text names it:
        ({alias: [importer]}, {target: [path]})."""
        if not alias_names:
            return {}, {}
        plain = [a.encode() + b"." for a in sorted(alias_names)]
        named = {t: t.encode() for t in target_names}
        names = b"|".join(re.escape(a.encode()) for a in sorted(alias_names))
        mentions = re.compile(
            rb"(?:^|\n)[ \t]*(?:import|from)[ \t][^\n]*\b(?:" + names + rb")\.|import_module\([^)]*\b(?:" + names + rb")\."
        )
        importers = {name: [] for name in alias_names}
        naming = {name: [] for name in target_names}
        for done, path in enumerate(self.tree.sources, 1):
            self.progress.show(f"{done}/{len(self.tree.sources)} files: imports through aliases")
            parsed = path in self.parser.trees
            text = self.reader.read(path) if named or not parsed else None
            for target, name in named.items():
                if text is not None and name in text:
                    naming[target].append(path)
            data = None
            if not parsed:
                data = text
                if data is None or not any(a in data for a in plain) or not mentions.search(data):
                    continue
            found = self.guarded(path, "reading its imports", lambda: self.imports_through(path, data, alias_names))
            for alias, importer in found or []:
                importers[alias].append(importer)
        return importers, naming

    def imports_through(self, path, data, alias_names):
        """(alias, importer) for each import in one file of a submodule through an alias name."""
        facts = self.facts_of(path, data)
        if facts is None:
            return []
        return [
            (alias, {"file": path, "line": line, "module": name})
            for line, name in imports_of(facts)
            for alias in alias_names
            if name.startswith(alias + ".")
        ]

    def imported_by_own_name(self, target, paths):
        """The modules of the package `target` that the files `paths` import by their own names
        (not relatively: a relative import's name depends on the name its module runs under)."""
        imported = set()
        for path in paths:
            facts = self.guarded(path, f"reading its imports of {target}", lambda: self.facts_of(path))
            if facts is None:
                continue
            for _, name in imports_of(facts, submodules_of=lambda m: self.locate(m) is not None, relative=False):
                if name == target or name.startswith(target + "."):
                    imported.add(name)
        return imported

    def loaded_by_own_name(self, target, imported):
        """The modules of the package `target` that run under their own names: the package itself,
        what its modules import of it (relatively, or by its name), from its `__init__.py` and from
        `imported` (those that scanned code imports by their own names), and their parents. Imports
        inside functions count: a module they may load is not taken for one that runs only once."""
        loaded, pending = set(), [target, *sorted(imported)]
        while pending:
            name = pending.pop()
            if name in loaded:
                continue
            loaded.add(name)
            place = self.locate(name)
            if place is None or place[0] != "source":
                continue
            facts = self.facts_of(place[1], module=name)
            if facts is None:
                continue
            facts.module = name
            for _, found in imports_of(facts, submodules_of=lambda m: self.locate(m) is not None):
                parts = found.split(".")
                depth = len(target.split("."))
                if found == target or found.startswith(target + "."):
                    pending.extend(".".join(parts[:i]) for i in range(depth, len(parts) + 1))
        return loaded

    def chain(self, alias, target, imported):
        """What importing `imported` (a name under `alias`) executes under the alias, followed until
        an extension: ([{"module", "file", "line", "by"}] ending at the extension, or None when none is
        reached; the names of the modules it executes, the extension's included)."""
        start = []
        parts = imported.split(".")
        alias_depth = len(alias.split("."))
        for i in range(alias_depth + 1, len(parts) + 1):
            start.append(".".join(parts[:i]))
        came_from = {name: None for name in start}
        executed = set()
        pending = list(start)
        while pending:
            name = pending.pop(0)
            place = self.locate(target + name[len(alias):])
            if place is None:
                continue
            kind, path = place
            executed.add(name)
            if kind == "extension":
                return self.steps(came_from, name, path), executed
            facts = self.facts_of(path, module=name)
            if facts is None:
                continue
            facts.module = name
            # `from <alias> import n` takes the attribute the real package has: only the submodules of a
            # package executed again are imported again.
            def is_submodule(m):
                return m.rsplit(".", 1)[0] != alias and self.locate(target + m[len(alias):]) is not None

            for line, found in imports_of(facts, submodules_of=is_submodule):
                if not found.startswith(alias + ".") or found in came_from:
                    continue
                found_parts = found.split(".")
                for i in range(alias_depth + 1, len(found_parts) + 1):
                    step = ".".join(found_parts[:i])
                    if step not in came_from:
                        came_from[step] = (name, path, line)
                        pending.append(step)
        return None, executed

    def steps(self, came_from, name, extension):
        steps = [{"module": name, "file": extension}]
        while came_from.get(name):
            by, path, line = came_from[name]
            steps[-1]["imported_at"] = {"file": path, "line": line}
            steps.append({"module": by, "file": path})
            name = by
        return list(reversed(steps))


def imports_of(facts, submodules_of=None, relative=True):
    """(line, absolute module name) for each import in a module; `from P import n` also gives P.n
    when `submodules_of` says P.n is a module. Without `relative`, the imports that name a module
    relative to this one's package are left out: their names depend on the name it runs under."""
    for node in ast.walk(facts.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level and not relative:
                continue
            base = facts.absolute(node.level, node.module or "")
            if not base:
                continue
            yield node.lineno, base
            if submodules_of is not None:
                for alias in node.names:
                    if alias.name != "*" and submodules_of(f"{base}.{alias.name}"):
                        yield node.lineno, f"{base}.{alias.name}"
        elif isinstance(node, ast.Call):
            target = facts.import_module_target(node)
            if target and not target.startswith("."):
                yield node.lineno, target


def covering(loop, alias):
    """A submodule-aliasing loop as it covers an alias: with the first condition it runs under
    that the alias's own write does not ("" when it runs whenever the alias is set)."""
    extra = [c for c in loop["conditions"] if c not in alias["conditions"]]
    covered = {k: v for k, v in loop.items() if k != "conditions"}
    covered["condition"] = extra[0]["text"] if extra else ""
    covered["condition_line"] = extra[0]["line"] if extra else 0
    return covered


def package_dirs_on_path(entries, extensions):
    """sys.path entries that are a package's own directory while an outer entry imports the package."""
    found = []
    for entry in entries:
        path = entry["path"]
        if not os.path.isfile(os.path.join(path, "__init__.py")):
            continue
        outer = [e for e in entries if path.startswith(e["path"].rstrip("/") + "/")]
        if not outer:
            continue
        base = max((e["path"] for e in outer), key=len)
        package = os.path.relpath(path, base).replace(os.sep, ".")
        inside = sorted(x["path"] for x in extensions if x["path"].startswith(path + "/"))
        found.append({"entry": entry, "outer_entry": base, "package": package, "extensions": inside})
    return found


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="scanner.py")
    parser.add_argument("--environment", action="store_true", help="scan this interpreter's sys.path")
    parser.add_argument("--path", action="append", default=[], help="a source tree or site directory to scan")
    parser.add_argument("--progress", action="store_true", help="a progress line on stderr")
    args = parser.parse_args(argv)
    started = time.monotonic()
    progress = Progress(args.progress)
    startup = startup_path(real(os.path.dirname(os.path.abspath(__file__)))) if args.environment else None
    entries = environment_sys_path(startup) if startup else []
    stdlib = stdlib_dirs()
    roots = [e["path"] for e in entries if e["origin"] != "stdlib" and os.path.isdir(e["path"])]
    problems = [
        f"sys.path entry {e['entry']} is a file (a zip or egg archive): not scanned"
        for e in entries
        if e["origin"] != "stdlib" and os.path.isfile(e["path"])
    ]
    argument_roots = []
    for path in args.path:
        if not os.path.exists(path):
            print(json.dumps({"error": f"{path}: no such file or directory"}))
            return 2
        argument_roots.append(real(path))
    scan = Scan(roots + argument_roots, progress)
    for root in scan.roots:
        scan.tree.walk(root, as_package=root in argument_roots and root not in roots)
    for path, module in scan.tree.sources.items():
        kind = "source"
        scan.by_name.setdefault(module, (kind, path))
    for path, extension in scan.tree.extensions.items():
        scan.by_name.setdefault(extension["module"], ("extension", path))
    scan.stdlib = sorted(stdlib)
    aliases, submodule_aliases = scan.find_aliases()
    for alias in aliases:
        located = [t for t in alias["targets"] or [] if scan.locate(t)]
        alias["target"] = located[0] if located else None
        alias["target_is_package"] = any(scan.is_package(t) for t in located)
    # A module that is no package has no submodules to execute again: its alias is harmless.
    aliases = sorted(
        (a for a in aliases if a["target_is_package"] or a["target"] is None), key=lambda a: (a["file"], a["line"])
    )
    importers, naming = scan.find_importers({a["alias"] for a in aliases}, {a["target"] for a in aliases if a["target"]})
    for alias in aliases:
        alias["importers"] = importers.get(alias["alias"], [])
        alias["targets_known"] = alias["targets"] is not None
        alias["targets"] = alias["targets"] or []
        alias["target"] = alias["target"] or ""
        alias["function"] = alias["function"] or ""
        alias["covered_by"] = [
            covering(s, alias) for s in submodule_aliases if s["prefix"] == alias["alias"] + "."
            and (s["file"], s["function"]) == (alias["file"], alias["function"])
        ]
        del alias["conditions"]
        alias["target_file"] = ""
        if alias["target"]:
            alias["target_file"] = scan.locate(alias["target"])[1]
            own = None if not alias["importers"] else scan.guarded(
                alias["target_file"], f"following what importing {alias['target']} by its name runs",
                lambda: scan.loaded_by_own_name(
                    alias["target"], scan.imported_by_own_name(alias["target"], naming.get(alias["target"], []))))
            for importer in alias["importers"]:
                followed = scan.guarded(
                    importer["file"], f"following what importing {importer['module']} executes again",
                    lambda: scan.chain(alias["alias"], alias["target"], importer["module"]))
                chain, executed = followed or (None, None)
                importer["executes_again"] = chain or []
                if own is not None and executed is not None and chain is None:
                    # What the import executes under the alias that also runs under its own name.
                    importer["under_both_names"] = sorted(
                        name for name in executed if alias["target"] + name[len(alias["alias"]):] in own)
    # An extension in a namespace portion of a name that is a regular package elsewhere is never
    # imported: left out.
    extensions = sorted(
        (x for x in scan.tree.extensions.values() if x.pop("regular") or not scan.is_package(x["module"].split(".")[0])),
        key=lambda x: x["path"],
    )
    described = [e for e in entries if e["origin"] != "stdlib"]
    for entry in described:
        entry["top_level"] = top_level_entries(entry["path"]) if os.path.isdir(entry["path"]) else []
    progress.done()
    facts = {
        "facts": "importscope-scan-facts/1",
        "python": {"executable": sys.executable, "version": ".".join(map(str, sys.version_info[:3]))},
        "sys_path": entries,
        "arguments": [{"path": r, "top_level": argument_top_level(r)} for r in argument_roots],
        "stdlib": sorted(stdlib),
        "files": {
            "sources": len(scan.tree.sources),
            "prefiltered": scan.prefiltered,
            "parsed": sum(1 for t in scan.parser.trees.values() if t is not None),
            "extensions": len(extensions),
        },
        "aliases": aliases,
        "extensions": extensions,
        "package_dirs_on_path": package_dirs_on_path(described, extensions),
        "unparsable": scan.parser.unparsable,
        "problems": problems + scan.tree.problems + scan.reader.problems + scan.problems,
        "unread": scan.reader.unread,
        "startup_code": startup.startup_code if startup else [],
        "duration_s": round(time.monotonic() - started, 3),
    }
    # File names that are not UTF-8 reach here as lone surrogates, which JSON cannot hold: each
    # byte that starts no valid sequence becomes U+FFFD, as in run's reports.
    text = json.dumps(facts, ensure_ascii=False).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    sys.stdout.buffer.write(text.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
