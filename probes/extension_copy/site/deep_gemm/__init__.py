"""DeepGEMM as installed by pip; its _C is a copy of the vendored one."""
