"""Vendored third-party packages."""
