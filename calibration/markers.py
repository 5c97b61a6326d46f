"""Fast ArUco marker detection for a *known, small set* of marker ids (the mat's printed markers).

Why not only ``cv2.aruco.ArucoDetector.detectMarkers``?  With the OpenCV 5.0 wheel used here it
spends about 4 us per (candidate x dictionary entry x rotation) identifying candidates: 0.4-0.6 s
for one 1280x720 view of the mat (124 candidates, 250-marker dictionary), far from a 15 ms frame
budget (measured, see benchmarks/calibration.py; a known slowdown: opencv-python issue #1067).
Every black chessboard square of a ChArUco board is a candidate, so this cost cannot be avoided
by tuning.

This detector does the same steps but identifies candidates against only the ids we expect, in
numpy: adaptive threshold -> contours -> convex quadrilaterals -> sub-pixel sides (edge points
along each side's normal, fitted lines, intersected) -> perspective sampling of the
``(markerSize + 2)^2`` cells -> black border check -> Hamming distance to the expected codes in
their four rotations (at most ``max_errors`` bits).  Corners come out in OpenCV's order (the
marker's own top-left, then clockwise); they are meant
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
        # the codes as bit fields (at most 64 bits): a Hamming distance is then a popcount of a XOR
        nb = self.codes.shape[1]
        self._bit_values = (np.uint64(1) << np.arange(nb, dtype=np.uint64)) if nb <= 64 else None
        self._packed = (
            (self.codes.astype(np.uint64) * self._bit_values).sum(axis=1, dtype=np.uint64)
            if self._bit_values is not None
            else None
        )
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
        # most contours are specks: their perimeters, summed in numpy, rule them out before the
        # per-contour calls (with a margin, so only the exact ``arcLength`` decides near the limits)
        long = [c for c in contours if len(c) >= 4]
        if long:
            pts = np.concatenate(long).reshape(-1, 2).astype(np.float64)
            lens = np.fromiter((len(c) for c in long), np.int64, len(long))
            starts = np.zeros(len(long), np.int64)
            np.cumsum(lens[:-1], out=starts[1:])
            seg = np.diff(pts, axis=0, append=pts[:1])
            seg[starts + lens - 1] = pts[starts] - pts[starts + lens - 1]  # each contour's closing side
            perims = np.add.reduceat(np.hypot(seg[:, 0], seg[:, 1]), starts)
            maybe = (perims >= 0.99 * min_perim - 1.0) & (perims <= 1.01 * max_perim + 1.0)
            long = [c for c, m in zip(long, maybe.tolist(), strict=True) if m]
        for c in long:
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

    def _identify(self, gray: U8, quads: list[F32]) -> tuple[list[tuple[int, F32, int]], list[int]]:
        """Identify all candidates at once: ``(matches, unsure)`` where matches are (id, corners in
        OpenCV order, bit errors) and ``unsure`` the indices of candidates with a marker-like black
        border whose code did not match (worth a second look with sub-pixel sides)."""
        if not quads or len(self.codes) == 0:
            return [], []
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
        if self._bit_values is not None and self._packed is not None:
            packed = (rots.astype(np.uint64) * self._bit_values).sum(axis=2, dtype=np.uint64)  # (N, 4)
            dist = np.bitwise_count(packed[:, :, None] ^ self._packed[None, None, :]).astype(np.int64)  # (N, 4, K)
        else:
            dist = np.count_nonzero(rots[:, :, None, :] != self.codes[None, None, :, :], axis=3)  # (N, 4, K)
        flat = dist.reshape(n_c, -1)
        best = flat.argmin(axis=1)
        best_err = flat[np.arange(n_c), best]
        out: list[tuple[int, F32, int]] = []
        matched = ok & (best_err <= self.max_errors)
        unsure = [int(i) for i in np.nonzero((hi - lo >= 80) & (border <= 10) & ~matched)[0]]
        for i in np.nonzero(matched)[0]:
            rot, j = divmod(int(best[i]), len(self.codes))
            # rot90(S, rot) == C: the code's top-left cell is the sampled grid's corner number `rot`
            corners = quads[int(i)][[rot % 4, (rot + 1) % 4, (rot + 2) % 4, (rot + 3) % 4]]
            out.append((int(self.ids[j]), corners.astype(np.float32), int(best_err[i])))
        return out, unsure

    def detect(
        self, gray: U8, refine: bool = True, refine_found: bool = True
    ) -> tuple[list[F32], npt.NDArray[np.int32]]:
        """Markers in ``gray``: (list of (1, 4, 2) float32 corners, ids (N,)), OpenCV's layout.

        ``refine``: retry doubtful candidates with sub-pixel sides; ``refine_found``: sub-pixel corners
        for the markers found (about 0.1 px instead of about 1.5 px; not needed when the corners only
        seed ``CharucoDetector.detectBoard``, which refines the ChArUco corners itself)."""
        found: dict[int, tuple[float, F32]] = {}
        cands = self._candidates(gray, self.min_side_px)
        matches, unsure = self._identify(gray, cands)
        if unsure and refine:  # small markers (cells of 2-3 px): sample again between sub-pixel sides
            again = self._refine_edges(gray, np.stack([cands[i] for i in unsure]).astype(np.float64))
            more, _ = self._identify(gray, [q.astype(np.float32) for q in again])
            matches += more
        for mid, corners, _err in matches:
            area = float(cv2.contourArea(corners))
            if mid not in found or area > found[mid][0]:
                found[mid] = (area, corners)
        ids = sorted(found)
        if not ids:
            return [], np.zeros(0, np.int32)
        quads = np.stack([found[i][1] for i in ids]).astype(np.float64)
        if refine_found:
            quads = self._refine_edges(gray, quads)
        corners_out = [q.reshape(1, 4, 2).astype(np.float32) for q in quads]
        return corners_out, np.array(ids, dtype=np.int32)

    @staticmethod
    def _refine_edges(gray: U8, quads: npt.NDArray[np.float64], samples: int = 8) -> npt.NDArray[np.float64]:
        """Sub-pixel corners: each side's edge is located along its normal at ``samples`` points
        (where the profile crosses half-way between the dark border and the white margin), a line is
        fitted through them, and neighbouring lines are intersected.  Sides with too few edge points
        keep the contour's corners."""
        m = len(quads)
        p0 = quads
        p1 = np.roll(quads, -1, axis=1)
        d = p1 - p0
        length = np.linalg.norm(d, axis=2, keepdims=True)
        u = d / np.maximum(length, 1e-9)
        nrm = np.stack([-u[..., 1], u[..., 0]], axis=-1)
        mid = (p0 + p1) / 2
        outward = np.sign(np.sum(nrm * (mid - quads.mean(axis=1, keepdims=True)), axis=2, keepdims=True))
        nrm = nrm * np.where(outward == 0, 1.0, outward)
        ts = np.linspace(0.2, 0.8, samples)
        half = np.clip(length[..., 0] / 8.0, 1.5, 3.0)  # search range along the normal, by marker size
        steps = np.linspace(-1.0, 1.0, 17)
        pts = p0[:, :, None, :] + ts[None, None, :, None] * d[:, :, None, :]  # (M, 4, K, 2)
        offs = half[:, :, None, None] * steps[None, None, None, :]  # (M, 4, 1, P)
        samp = pts[:, :, :, None, :] + offs[..., None] * nrm[:, :, None, None, :]  # (M, 4, K, P, 2)
        n_p = len(steps)
        flat = samp.reshape(-1, n_p, 2).astype(np.float32)
        vals = cv2.remap(gray, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        v = vals.astype(np.float64).reshape(-1, n_p)
        level = (v.min(axis=1, keepdims=True) + v.max(axis=1, keepdims=True)) / 2
        contrast = v.max(axis=1) - v.min(axis=1)
        cross = (v[:, :-1] < level) & (v[:, 1:] >= level)
        centre = (n_p - 1) / 2
        dist = np.where(cross, np.abs(np.arange(n_p - 1) + 0.5 - centre)[None, :], np.inf)
        j = dist.argmin(axis=1)
        valid = np.isfinite(dist[np.arange(len(j)), j]) & (contrast > 20)
        vj = v[np.arange(len(j)), j]
        vj1 = v[np.arange(len(j)), j + 1]
        frac = (level[:, 0] - vj) / np.maximum(vj1 - vj, 1e-9)
        pos = (j + frac) / (n_p - 1) * 2.0 - 1.0  # in units of `half`
        pos = pos.reshape(m, 4, samples) * half[:, :, None]
        edge = pts + pos[..., None] * nrm[:, :, None, :]
        w = valid.reshape(m, 4, samples).astype(np.float64)
        cnt = w.sum(axis=2)
        mean = (edge * w[..., None]).sum(axis=2) / np.maximum(cnt, 1)[..., None]
        dev = (edge - mean[:, :, None, :]) * np.sqrt(w)[..., None]
        cxx = (dev[..., 0] ** 2).sum(axis=2)
        cyy = (dev[..., 1] ** 2).sum(axis=2)
        cxy = (dev[..., 0] * dev[..., 1]).sum(axis=2)
        ang = 0.5 * np.arctan2(2 * cxy, cxx - cyy)
        dirs = np.stack([np.cos(ang), np.sin(ang)], axis=-1)  # (M, 4, 2) line directions
        # corner i = intersection of side i-1 and side i
        pa, da = np.roll(mean, 1, axis=1), np.roll(dirs, 1, axis=1)
        pb, db = mean, dirs
        den = da[..., 0] * db[..., 1] - da[..., 1] * db[..., 0]
        diff = pb - pa
        s_par = (diff[..., 0] * db[..., 1] - diff[..., 1] * db[..., 0]) / np.where(
            np.abs(den) < 1e-9, 1e-9, den
        )
        corners = pa + s_par[..., None] * da
        ok = (cnt >= 4).all(axis=1) & (np.abs(den) > 0.2).all(axis=1)
        ok &= (np.linalg.norm(corners - quads, axis=2) < 3.0).all(axis=1)
        return np.where(ok[:, None, None], corners, quads)
