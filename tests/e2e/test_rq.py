"""A real job queue, RQ (https://python-rq.org), end to end: a worker
process started before any job blocks in BLPOP on its queue, jobs enqueued
afterwards (hashes for the jobs, lists for the queue, sorted sets for the
registries, sets for the workers, MULTI/EXEC pipelines with WATCH) are
run by it and their results read back (RQ 2 keeps each job's results in a
stream: XADD with MAXLEN, XREVRANGE); a failing job lands in the failed
registry. Also passes with RQ 3.0 on redis-py 8 (checked by hand; the
suite's redis-py is 5)."""

import os
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest
import redis

rq = pytest.importorskip("rq")

JOBS = textwrap.dedent("""
    def add(a, b):
        return a + b

    def fail():
        raise ValueError("boom")
""")


def test_rq_worker_runs_jobs_enqueued_while_it_blocks(server, r):
    path = tempfile.mkdtemp(prefix="strata-e2e-rq-")
    with open(os.path.join(path, "strata_rq_jobs.py"), "w") as f:
        f.write(JOBS)
    sys.path.insert(0, path)
    try:
        import strata_rq_jobs
        n = 25
        worker = subprocess.Popen(
            [sys.executable, "-m", "rq.cli", "worker", "--url",
             f"redis://127.0.0.1:{server.resp_port}", "--path", path,
             "--max-jobs", str(n + 1), "--worker-class", "rq.SimpleWorker", "strata-q"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            # The worker registers itself, then blocks on the empty queue.
            deadline = time.monotonic() + 20
            while not rq.Worker.all(connection=r) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert rq.Worker.all(connection=r), "the worker did not register"
            time.sleep(0.3)
            q = rq.Queue("strata-q", connection=r)
            jobs = [q.enqueue(strata_rq_jobs.add, i, 1) for i in range(n)]
            bad = q.enqueue(strata_rq_jobs.fail)
            output, _ = worker.communicate(timeout=60)
            assert worker.returncode == 0, output
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        assert [j.get_status(refresh=True) for j in jobs] == ["finished"] * n, output
        assert [j.result for j in jobs] == [i + 1 for i in range(n)]
        assert bad.get_status(refresh=True) == "failed"
        bad.refresh()
        assert "ValueError: boom" in bad.exc_info
        assert len(q) == 0
        assert rq.registry.FinishedJobRegistry(queue=q).count == n
        assert rq.registry.FailedJobRegistry(queue=q).get_job_ids() == [bad.id]
    finally:
        sys.path.remove(path)
