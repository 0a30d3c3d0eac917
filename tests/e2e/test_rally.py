"""Rally (esrally, from PyPI) runs a small eventdata-like track against
Strata to the end with zero errors, with its always-on telemetry (node
JVM stats, index stats at shard level) reading Strata's replies.

The track (``rally_track/``) uses the operations Rally's eventdata track
uses: an index template with ``index.codec: best_compression``, bulk
through a parameter source, rollover, Kibana-style ``_msearch`` dashboards
with a named time zone (one over an empty time range), ``/*/_stats/store``.
``scripts/peers/rally`` runs the real eventdata track the same way.

esrally lives in its own virtualenv (its pinned dependencies differ from
the suite's): ``STRATA_ESRALLY`` names its ``esrally``, default
``target/rally-venv/bin/esrally`` (``scripts/test`` installs it there).
"""

import csv
import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT

TRACK = Path(__file__).resolve().parent / "rally_track"


def esrally():
    path = Path(os.environ.get("STRATA_ESRALLY", REPO_ROOT / "target" / "rally-venv" / "bin" / "esrally"))
    if not path.exists():
        pytest.skip(f"esrally not installed at {path} (scripts/test installs it)")
    return path


def test_small_eventdata_track_runs_without_errors(server, tmp_path):
    rally = esrally()
    report = tmp_path / "report.csv"
    env = dict(os.environ, RALLY_HOME=str(tmp_path / "home"))
    run = subprocess.run(
        [str(rally), "race", "--offline", "--pipeline=benchmark-only",
         f"--target-hosts=127.0.0.1:{server.http_port}", f"--track-path={TRACK}",
         "--kill-running-processes", "--report-format=csv", f"--report-file={report}",
         "--on-error=abort"],
        env=env, capture_output=True, text=True, timeout=600,
    )
    logs = sorted((tmp_path / "home").rglob("rally.log"))
    tail = logs[-1].read_text()[-4000:] if logs else ""
    assert run.returncode == 0, f"{run.stdout[-3000:]}\n{run.stderr[-2000:]}\n{tail}"
    rows = list(csv.reader(report.open()))
    error_rates = {r[1]: float(r[2]) for r in rows if r and r[0] == "error rate"}
    for task in ["bulk-1", "bulk-2", "rollover", "kibana-dashboard", "stats-store"]:
        assert error_rates.get(task) == 0.0, (task, error_rates)
    # The always-on telemetry read the JVM pools and the index stats.
    metrics = {r[0]: r for r in rows if r}
    assert "Total Young Gen GC time" in metrics, sorted(metrics)
    assert "Store size" in metrics, sorted(metrics)
