"""Fast ArUco marker detection for a *known, small set* of marker ids (the mat's printed markers).

Why not only ``cv2.aruco.ArucoDetector.detectMarkers``?  With the OpenCV 5.0 wheel used here it
spends about 4 us per (candidate x dictionary entry x rotation) identifying candidates: 0.4-0.6 s
for one 1280x720 view of the mat (124 candidates, 250-marker dictionary), far from a 15 ms frame
budget (measured, see benchmarks/calibration.py; a known slowdown: opencv-python issue #1067).
Every black chessboard square of a ChArUco board is a candidate, so this cost cannot be avoided
by tuning.

This detector does the same steps but identifies candidates against only the ids we expect, in
numpy: adaptive threshold -> contours -> convex quadrilaterals -> perspective sampling of the
``(markerSize + 2)^2`` cells -> black border check -> Hamming distance to the expected codes in
their four rotations (at most ``max_errors`` bits).  Corners come out in OpenCV's order (the
marker's own top-left, then clockwise) and are refined with ``cv2.cornerSubPix``; they are meant
to be passed to ``cv2.aruco.CharucoDetector.detectBoard(image, markerCorners=..., markerIds=...)``,
which interpolates and refines the ChArUco corners itself.  Tests check it against OpenCV's own
detector on rendered views (same ids, corners within a fraction of a pixel).
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["FastMarkerDetector"]

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]


class FastMarkerDetector:
    """Detect markers with ids in ``ids`` from ``dictionary``."""

    def __init__(
        self,
        dictionary: cv2.aruco.Dictionary,
        ids: Iterable[int],
        *,
        max_errors: int = 1,
        min_side_px: float = 10.0,
    ) -> None:
        self.n = int(dictionary.markerSize)
        self.ids = np.array(sorted(set(int(i) for i in ids)), dtype=np.int32)
        codes = []
        for i in self.ids:
            img = cv2.aruco.generateImageMarker(dictionary, int(i), self.n + 2, borderBits=1)
            codes.append((np.asarray(img)[1:-1, 1:-1] > 127).astype(np.uint8))
        base = np.stack(codes) if codes else np.zeros((0, self.n, self.n), np.uint8)
        # rotations: sampled grid S matches code C when rot90(S, k) == C
        self.codes = base.reshape(len(base), -1)
        self.max_errors = max_errors
        self.min_side_px = min_side_px

    def _candidates(self, gray: U8, min_side: float) -> list[F32]:
        h, w = gray.shape[:2]
        block = max(7, (min(w, h) // 25) | 1)
        sub = gray[::8, ::8]
        lo, hi = np.percentile(sub, [5, 95]) if sub.size else (0.0, 255.0)
        c_off = float(np.clip(0.1 * (hi - lo), 4.0, 20.0))  # ignore noise, keep low-contrast markers
        binary = cv2.adaptiveThreshold(
            gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, c_off
        )
        contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        min_perim = 4 * min_side
        max_perim = 4 * max(w, h)
        quads: list[npt.NDArray[np.int32]] = []
        for c in contours:
            if len(c) < 4:
                continue
            perim = cv2.arcLength(c, True)
            if perim < min_perim or perim > max_perim:
                continue
            approx = cv2.approxPolyDP(c, 0.05 * perim, True)
            if len(approx) == 4 and cv2.isContourConvex(approx):
                quads.append(np.asarray(approx, np.int32))
        if not quads:
            return []
        q = np.stack(quads).reshape(-1, 4, 2).astype(np.float32)
        sides = np.linalg.norm(q - np.roll(q, 1, axis=1), axis=2)
        d1, d2 = q[:, 1] - q[:, 0], q[:, 2] - q[:, 1]
        cw = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0] > 0  # clockwise in image coordinates (y down)
        q = np.where(cw[:, None, None], q, q[:, ::-1])
        keep = (
            (sides.min(1) >= min_side)
            & (sides.min(1) >= 0.25 * sides.max(1))
            & (q[:, :, 0].min(1) >= 1)
            & (q[:, :, 1].min(1) >= 1)
            & (q[:, :, 0].max(1) <= w - 2)
            & (q[:, :, 1].max(1) <= h - 2)
        )
        return [np.ascontiguousarray(x) for x in q[keep]]

    def _identify(self, gray: U8, quads: list[F32]) -> list[tuple[int, F32, int]]:
        """Identify all candidates at once: (id, corners in OpenCV order, bit errors) for the matches."""
        if not quads or len(self.codes) == 0:
            return []
        q = np.stack(quads).astype(
            np.float64
        )  # (N, 4, 2), corners of the unit square (0,0) (1,0) (1,1) (0,1)
        k = self.n + 2
        # square -> quad homography in closed form (Heckbert), vectorised over candidates
        x0, x1, x2, x3 = (q[:, i, 0] for i in range(4))
        y0, y1, y2, y3 = (q[:, i, 1] for i in range(4))
        dx1, dx2, dx3 = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
        dy1, dy2, dy3 = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
        den = dx1 * dy2 - dx2 * dy1
        den = np.where(np.abs(den) < 1e-9, 1e-9, den)
        g = (dx3 * dy2 - dx2 * dy3) / den
        h = (dx1 * dy3 - dx3 * dy1) / den
        a, b, c = x1 - x0 + g * x1, x3 - x0 + h * x3, x0
        d, e, f = y1 - y0 + g * y1, y3 - y0 + h * y3, y0
        # 2 x 2 samples inside each cell (away from the cell edges)
        offs = (np.arange(k)[:, None] + np.array([0.35, 0.65])[None, :]).reshape(-1) / k
        uu, vv = np.meshgrid(offs, offs)  # (3k, 3k), u along x
        u, v = uu.reshape(1, -1), vv.reshape(1, -1)
        wgt = g[:, None] * u + h[:, None] * v + 1.0
        px = (a[:, None] * u + b[:, None] * v + c[:, None]) / wgt
        py = (d[:, None] * u + e[:, None] * v + f[:, None]) / wgt
        n_c = px.shape[0]
        vals = cv2.remap(
            gray,
            px.reshape(n_c * 2 * k, 2 * k).astype(np.float32),
            py.reshape(n_c * 2 * k, 2 * k).astype(np.float32),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        cells = vals.reshape(n_c, k, 2, k, 2).sum(
            axis=(2, 4), dtype=np.int32
        )  # (N, k, k) [row, col], 4x mean
        lo, hi = cells.min(axis=(1, 2)), cells.max(axis=(1, 2))
        bits = (cells > ((lo + hi) / 2.0)[:, None, None]).astype(np.uint8)
        border = (
            bits[:, 0, :].sum(1) + bits[:, -1, :].sum(1) + bits[:, 1:-1, 0].sum(1) + bits[:, 1:-1, -1].sum(1)
        )
        ok = (hi - lo >= 80) & (border <= 2)  # 4 x 20 grey levels
        inner = bits[:, 1:-1, 1:-1]
        rots = np.stack(
            [np.rot90(inner, r, axes=(1, 2)).reshape(n_c, -1) for r in range(4)], axis=1
        )  # (N, 4, n*n)
        dist = np.count_nonzero(rots[:, :, None, :] != self.codes[None, None, :, :], axis=3)  # (N, 4, K)
        flat = dist.reshape(n_c, -1)
        best = flat.argmin(axis=1)
        best_err = flat[np.arange(n_c), best]
        out: list[tuple[int, F32, int]] = []
        for i in np.nonzero(ok & (best_err <= self.max_errors))[0]:
            rot, j = divmod(int(best[i]), len(self.codes))
            # rot90(S, rot) == C: the code's top-left cell is the sampled grid's corner number `rot`
            corners = quads[int(i)][[rot % 4, (rot + 1) % 4, (rot + 2) % 4, (rot + 3) % 4]]
            out.append((int(self.ids[j]), corners.astype(np.float32), int(best_err[i])))
        return out

    def detect(self, gray: U8, refine: bool = True) -> tuple[list[F32], npt.NDArray[np.int32]]:
        """Markers in ``gray``: (list of (1, 4, 2) float32 corners, ids (N,)), OpenCV's layout."""
        found: dict[int, tuple[float, F32]] = {}
        quads = self._candidates(gray, self.min_side_px)
        for mid, corners, _err in self._identify(gray, quads):
            area = float(cv2.contourArea(corners))
            if mid not in found or area > found[mid][0]:
                found[mid] = (area, corners)
        ids = sorted(found)
        corners_out: list[F32] = []
        crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 0.03)
        for mid in ids:
            c = found[mid][1].reshape(4, 1, 2).copy()
            if refine:
                side = float(np.linalg.norm(c[0, 0] - c[1, 0]))
                win = int(np.clip(side / 10.0, 2, 5))
                c = np.asarray(cv2.cornerSubPix(gray, c, (win, win), (-1, -1), crit), np.float32)
            corners_out.append(c.reshape(1, 4, 2).astype(np.float32))
        return corners_out, np.array(ids, dtype=np.int32)
