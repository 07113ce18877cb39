"""The link-contention matrix of one job at the I/O column (Mache 1999, Figs. 48-50, L1981).

For a job of n compute nodes writing to m I/O nodes in an otherwise empty mesh, row l_i is the
i-th link of the I/O column counted from the top (l_i has i I/O nodes above it, i = 1 … m-1) and
column s is senders_above, the number of the job's nodes above l_i. Under XY routing every sender
enters the I/O column in its own row, so l_i carries s · (m - i) pairs downward and (n - s) · i
pairs upward, and the entry is the larger:

    M[i][s] = max(s · (m - i), (n - s) · i)

Fig. 49's code is lost from the text; this closed form reproduces every value printed in
Fig. 50 (k = m = 16, n = 14) and the Fig. 48 rows (k = m = n = 4) (extraction §4.5; checked
against the routing model in the tests). A layout is one entry per row with senders_above
non-decreasing in i; the best layouts keep every chosen entry near its row minimum.
"""

from __future__ import annotations

import numpy as np


def io_link_matrix(m: int, n: int) -> np.ndarray:
    """M as an (m - 1) × (n + 1) integer array; row i - 1 is link l_i, column s senders above."""
    if m < 2 or n < 1:
        raise ValueError(f"need m >= 2 I/O nodes and n >= 1 compute nodes, got m={m}, n={n}")
    i = np.arange(1, m)[:, None]
    s = np.arange(n + 1)[None, :]
    return np.maximum(s * (m - i), (n - s) * i)
