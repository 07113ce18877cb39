"""An independent, deliberately plain reference for flat FCFS and EASY (issue 2).

It shares no code with the engine: it reads SWF itself, normalizes by the DESIGN.md rules, and
runs a heap loop. Rules:
- at each instant: all events of that instant (ends, arrivals), then one pass, repeated while new
  events (zero-length jobs) land on the same instant;
- pass: start jobs in FCFS order while the first one fits;
- EASY: the first waiting job's shadow time is the earliest expected end (start + estimate, or
  now if that has passed) at which the free nodes, counting every job expected to end by then,
  reach its size; extra = free at the shadow time − its size. Later jobs, in order, start if they
  fit now and end by the shadow time, or use no more than the extra nodes (which they consume).
"""

import heapq
import math


def read_jobs(path, runtime_scale=1.0):
    jobs = []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith(";"):
                continue
            f = [float(x) for x in line.split()]
            size = f[7] if f[7] > 0 else f[4]
            runtime = f[3]
            if size <= 0 or runtime < 0:
                continue
            estimate = f[8] if f[8] > 0 else runtime
            jobs.append(
                (f[1], int(f[0]), int(size), runtime * runtime_scale, estimate * runtime_scale)
            )
    jobs.sort(key=lambda j: (j[0], j[1]))
    return jobs


def simulate(jobs, nodes, easy):
    """Start time per job number."""
    heap = [(submit, 1, k) for k, (submit, *_rest) in enumerate(jobs)]
    heapq.heapify(heap)
    free = nodes
    queue = []
    running = {}
    start = {}

    def begin(k, t):
        nonlocal free
        _, number, size, runtime, estimate = jobs[k]
        free -= size
        running[k] = (t, size, estimate)
        start[number] = t
        heapq.heappush(heap, (t + runtime, 0, k))

    while heap:
        t = heap[0][0]
        while heap and heap[0][0] == t:
            _, kind, k = heapq.heappop(heap)
            if kind == 0:
                free += running.pop(k)[1]
            else:
                queue.append(k)
        while queue and jobs[queue[0]][2] <= free:
            begin(queue.pop(0), t)
        if not queue or not easy:
            continue
        head_size = jobs[queue[0]][2]
        ends = {}
        for r_start, size, estimate in running.values():
            e = max(r_start + estimate, t)
            ends[e] = ends.get(e, 0) + size
        avail = free
        shadow, extra = math.inf, 0
        for e in sorted(ends):
            avail += ends[e]
            if avail >= head_size:
                shadow, extra = e, avail - head_size
                break
        for k in list(queue[1:]):
            size, estimate = jobs[k][2], jobs[k][4]
            if size > free:
                continue
            ends_by_shadow = t + estimate <= shadow
            if ends_by_shadow or size <= extra:
                queue.remove(k)
                begin(k, t)
                if not ends_by_shadow:
                    extra -= size
    return start
