"""Imports many ordinary stdlib modules, each once under its own name, and
exits 0: a program with nothing to report."""
import argparse
import asyncio
import concurrent.futures
import csv
import ctypes
import decimal
import email.message
import http.client
import json
import logging.handlers
import multiprocessing.pool
import sqlite3
import sys
import tarfile
import unittest
import xml.etree.ElementTree
import zipfile

try:
    import ssl
except ImportError:  # Python built without OpenSSL
    ssl = None

modules = [argparse, asyncio, concurrent.futures, csv, ctypes, decimal, email.message,
           http.client, json, logging.handlers, multiprocessing.pool, sqlite3, tarfile,
           unittest, xml.etree.ElementTree, zipfile]
if ssl is not None:
    modules.append(ssl)
print(f"imported {len(modules)} modules, {len(sys.modules)} in sys.modules", flush=True)
