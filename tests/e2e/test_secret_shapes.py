"""The secret rules of docs/secrets.md end to end: a token in a module's name, a JWT in a variable,
passwords and auth headers in an exception, and the secret options of a child's command line never
reach the report, its Markdown or the summary; ordinary names that only look like them stay."""
import os
import shutil
import subprocess

from conftest import BIN, PYTHON

# Every value here is made up for the test.
TOKEN_MODULE = "ghp_0123456789abcdefABCDEF0123456789abcd"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlLXVzZXIifQ.c2lnbmF0dXJlLWZha2U"
SECRETS = [TOKEN_MODULE, JWT, "hunter2", "apikey-9999", "bearer-cred.xyz", "jsonpw-1010", "sep-secret-555",
           "dbpass-444", "pat-secret-111", "cookie-secret-222", "userpw-333", "dbpassvar-666", "private-777",
           "phrase-888", "readpw-1212"]

TARGET = f"""
import importlib, os, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
importlib.import_module("{TOKEN_MODULE}")
import password_utils, keyring_local
os.getenv("MYAPP_SESSION")
os.getenv("MYAPP_DB_PASS")
os.getenv("MYAPP_KEYBOARD_LAYOUT")
argv = ["mysql", "-phunter2", "-p", "sep-secret-555", "--db-pass", "dbpass-444", "--pat", "pat-secret-111",
        "--cookie", "cookie-secret-222", "deploy:userpw-333@db.internal", "--port", "3306"]
subprocess.run(["/bin/true", *argv], check=True)
subprocess.run([sys.executable, "-c", "import os; os.getenv('MYAPP_READ_PASS')", *argv], check=True)
raise RuntimeError('login failed: password=hunter2 api_key=apikey-9999 '
                   'Authorization: Bearer bearer-cred.xyz body {{"password": "jsonpw-1010"}}')
"""


def test_secret_shapes_never_reach_the_report_or_its_renderings(importscope, tmp_path):
    # Packages that load a copy of an extension module of the standard library: the module records
    # name them "<package>._bisect", and their __init__.py stands in the frames.
    extension = subprocess.run([PYTHON, "-c", "import _bisect; print(_bisect.__file__)"], capture_output=True,
                               text=True, check=True).stdout.strip()
    for package in (TOKEN_MODULE, "password_utils", "keyring_local"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("from . import _bisect\n")
        shutil.copy(extension, tmp_path / package / os.path.basename(extension))
    script = tmp_path / "target.py"
    script.write_text(TARGET)
    env = dict(os.environ, MYAPP_SESSION=JWT, MYAPP_DB_PASS="dbpassvar-666", MYAPP_PRIVATE="private-777",
               MYAPP_PASSPHRASE="phrase-888", MYAPP_KEYBOARD_LAYOUT="us-intl", MYAPP_READ_PASS="readpw-1212",
               MYAPP_PATH="/opt/myapp")
    run = importscope("--env-prefix", "MYAPP_", str(script), env=env)
    assert run.report is not None, run.stderr
    text = run.report_path.read_text()
    markdown = subprocess.run([BIN, "report", str(run.report_path), "--format", "markdown"], capture_output=True,
                              text=True, timeout=120).stdout
    # importscope's own lines: the target's traceback on its stderr is its own.
    summary = "\n".join(line for line in run.stderr.splitlines() if line.startswith("importscope"))
    for secret in SECRETS:
        assert secret not in text, secret
        assert secret not in markdown, secret
        assert secret not in summary, secret
    names = {m["name"] for m in run.report["modules"]}
    assert {"<redacted>._bisect", "password_utils._bisect", "keyring_local._bisect"} <= names
    variables = run.report["environment"]["variables"]
    assert variables["MYAPP_KEYBOARD_LAYOUT"] == "us-intl"
    assert variables["MYAPP_PATH"] == "/opt/myapp"
    assert variables["MYAPP_SESSION"] == "<redacted>"
    programs = [p for proc in run.report["processes"] for p in proc["programs"] if p["executable"] == "/bin/true"]
    assert programs and programs[0]["argv"][1:] == [
        "mysql", "-p<redacted>", "-p", "<redacted>", "--db-pass", "<redacted>", "--pat", "<redacted>", "--cookie",
        "<redacted>", "deploy:<redacted>@db.internal", "--port", "3306"]
    assert "Authorization: Bearer <redacted>" in text
