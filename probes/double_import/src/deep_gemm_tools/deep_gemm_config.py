"""Module-level state: executed once per module name it is imported under."""
print("deep_gemm_config executed as", __name__, flush=True)

_registry = {}


def register(key, value):
    _registry[key] = value


def lookup(key):
    return _registry.get(key)
