"""duckdb 1.5.5 imports pandas (0.3-0.7 s) the first time it binds a parameter; the `mathprobe`
command hides it (`pandas_hidden`), and only for its own life: pandas imports again after."""
from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
import duckdb
from mathprobe.store.duckdb_store import pandas_hidden
con = duckdb.connect()
with pandas_hidden():
    assert con.execute("SELECT ?, ?", ["x", 1]).fetchall() == [("x", 1)]
    assert not [m for m in sys.modules if m.startswith("pandas.")], "pandas was imported"
import pandas
assert pandas.DataFrame({"a": [1]}).shape == (1, 1)
print("ok")
"""


def test_binding_a_parameter_imports_no_pandas_while_hidden_and_pandas_works_after():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
