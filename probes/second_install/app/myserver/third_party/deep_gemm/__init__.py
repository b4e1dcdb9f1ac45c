"""The application's vendored DeepGEMM."""
VERSION = "vendored"
