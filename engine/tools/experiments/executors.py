"""Where the cases of a sweep run.

- ``local`` (default): a pool of worker processes on this machine, one per core unless ``--workers
  N`` says otherwise; with one worker the cases run in this process, one after another (no pool to
  start, and Ctrl-C lands directly in the running case). Pool workers start from a fork server
  (spawn where there is none), so they never inherit the threads of the parent's progress display;
  they ignore SIGINT, and on Ctrl-C the parent cancels what is queued and terminates them.
- ``dask``: a Dask ``distributed`` LocalCluster of N single-threaded worker processes;
  ``dask://HOST:PORT``: an existing Dask scheduler. Workers must run the same meshsim and see the
  input files at the same paths (a worker that reads other bytes fails the case; see
  :mod:`meshsim.engine.tools.experiments.worker`). Dask is optional: ``pip install
  'meshsim[dask]'``.

Every executor reports outcomes as they complete, in whatever order, to a callback that runs in this
process (which alone writes the results folder), and re-raises ``KeyboardInterrupt`` after stopping
its work."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any, Protocol

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.experiments.plan import Task
from meshsim.engine.tools.experiments.worker import Outcome, execute_case

DASK_PREFIX = "dask://"


class Executor(Protocol):
    """Runs tasks and reports each outcome to ``done`` as it completes."""

    description: str

    def run(self, tasks: Sequence[Task], done: Callable[[Outcome], None]) -> None: ...


def make_executor(name: str, workers: int | None = None) -> Executor:
    """The executor ``local``, ``dask`` or ``dask://HOST:PORT`` with ``workers`` workers (default:
    the number of cores)."""
    if workers is not None and workers < 1:
        raise MeshsimError(f"--workers must be at least 1, got {workers}")
    count = workers or os.cpu_count() or 1
    if name == "local":
        return InlineExecutor() if count == 1 else PoolExecutor(count)
    if name == "dask":
        return DaskExecutor(None, count)
    if name.startswith(DASK_PREFIX) and ":" in name[len(DASK_PREFIX) :]:
        return DaskExecutor("tcp://" + name[len(DASK_PREFIX) :], count)
    raise MeshsimError(f"unknown executor '{name}' (valid: local, dask, dask://HOST:PORT)")


class InlineExecutor:
    """Runs every task in this process, in order."""

    description = "local, 1 worker (in process)"

    def run(self, tasks: Sequence[Task], done: Callable[[Outcome], None]) -> None:
        for task in tasks:
            done(execute_case(task))


class PoolExecutor:
    """A pool of ``workers`` processes on this machine."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.description = f"local, {workers} worker processes"

    def run(self, tasks: Sequence[Task], done: Callable[[Outcome], None]) -> None:
        if not tasks:
            return
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(tasks)),
            mp_context=context,
            initializer=worker_signals,
        )
        try:
            futures: dict[Future[Outcome], Task] = {
                pool.submit(execute_case, task): task for task in tasks
            }
            for future in as_completed(futures):
                done(_pool_outcome(future, futures[future]))
        except BaseException:
            terminate_pool(pool)
            raise
        pool.shutdown()


def worker_signals() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle (it reaches the whole process group),
    and SIGTERM ends the worker at once, whatever handler the parent had (the parent sends it to
    stop a worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _pool_outcome(future: Future[Outcome], task: Task) -> Outcome:
    try:
        return future.result()
    except Exception as exc:  # the worker process died (killed, out of memory, ...)
        return Outcome(task.case_id, error=f"worker process failed: {type(exc).__name__}: {exc}")


def terminate_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel queued tasks and end the worker processes now (``terminate_workers`` exists only from
    Python 3.14, so the processes are taken from the pool before it forgets them)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)


class DaskExecutor:
    """Tasks on a Dask cluster: a new LocalCluster (``address`` None) or an existing scheduler."""

    def __init__(self, address: str | None, workers: int) -> None:
        self.address = address
        self.workers = workers
        self.description = (
            f"dask scheduler {address}"
            if address
            else f"dask LocalCluster, {workers} worker processes"
        )

    def run(self, tasks: Sequence[Task], done: Callable[[Outcome], None]) -> None:
        distributed = _import_distributed()
        cluster: Any = None
        if self.address is None:
            cluster = distributed.LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        try:
            client = distributed.Client(cluster or self.address, timeout="10s")
        except (OSError, TimeoutError) as exc:
            if cluster is not None:
                cluster.close()
            raise MeshsimError(
                f"cannot reach the Dask scheduler at {self.address}: {exc}"
            ) from None
        futures: list[Any] = []
        try:
            futures = client.map(
                execute_case, list(tasks), pure=False, key=[f"meshsim-{t.case_id}" for t in tasks]
            )
            by_key = {f.key: t for f, t in zip(futures, tasks, strict=True)}
            for future in distributed.as_completed(futures):
                try:
                    outcome = future.result()
                except Exception as exc:  # a worker died or the scheduler gave up on the task
                    outcome = Outcome(by_key[future.key].case_id, error=f"dask: {exc!r}")
                done(outcome)
        except BaseException:
            client.cancel(futures)
            raise
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise MeshsimError("the dask executors need Dask: pip install 'meshsim[dask]'") from None
    return distributed
