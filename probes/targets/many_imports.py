"""100,000 imports: an in-memory finder makes modules `synthetic_N` (not recorded by the default
--match) and `deep_gemm_synthetic_N` (recorded); `many_imports.py COUNT MATCHING`."""
import importlib
import importlib.abc
import importlib.util
import sys


class SyntheticFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.startswith(("synthetic_", "deep_gemm_synthetic_")):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.VALUE = len(module.__name__)


sys.meta_path.append(SyntheticFinder())
count, matching = int(sys.argv[1]), int(sys.argv[2])
total = 0
for n in range(count):
    total += importlib.import_module(f"synthetic_{n}").VALUE
for n in range(matching):
    total += importlib.import_module(f"deep_gemm_synthetic_{n}").VALUE
print(count + matching, total, flush=True)
