"""The printable Boardside play mat: its specification, its image, and where everything is in the world.

The mat is a sheet of paper (A4, A3 or Letter, always *landscape*) printed at true scale with

* a ChArUco pattern (a ring of ``ring`` squares deep) around a central clear area,
* the Central Cube's footprint (``3 x block_mm`` square, with its 3 x 3 cells drawn thin) outlined at
  the centre of the sheet,
* the side names ``"+x" "-x" "+y" "-y"`` printed at the matching edges (each readable by a person
  standing on that side),
* a white, a mid-grey and a black patch and four colour patches (blue, pink, yellow, green) in the
  ``-y`` band, a second white and grey pair in the ``+y`` band,
* a line of text naming the mat and a 50 mm scale bar (to check "print at 100 %").

Coordinate systems (see docs/coordinates.md and docs/calibration.md)
---------------------------------------------------------------------
**Mat millimetres** ``(u, v)``: origin at the *top-left corner of the paper* as printed (landscape),
``u`` to the right, ``v`` down.  The sheet spans ``[0, W] x [0, H]`` (``spec.paper_size_mm``).

**World millimetres** ``(x, y, z)`` (the battlefield frame): right-handed, ``z`` up out of the paper,
origin at the table corner of the Central Cube footprint, so the footprint is ``[0, 3s] x [0, 3s]``
with ``s = block_mm``.  On the printed sheet ``+x`` points right and ``+y`` points *up the page*
(toward the top edge), so::

    x = u - (W/2 - 1.5 s)        y = (H/2 + 1.5 s) - v        z = 0 on the paper

The right edge of the sheet is the ``"+x"`` side, the top edge ``"+y"``, the left ``"-x"``, the bottom
``"-y"``.  :meth:`MatSpec.mat_to_world` / :meth:`MatSpec.world_to_mat` implement this mapping and
:meth:`MatSpec.paper_world_rect` gives the sheet's rectangle in world coordinates.

**Image pixels** of :func:`render_mat` (OpenCV convention): the image covers exactly the sheet; the
centre of pixel ``(col, row)`` is at continuous coordinate ``(col, row)`` and the sheet's edges are at
``-0.5`` and ``width - 0.5``.  With ``kx = width / W`` and ``ky = height / H`` (pixels per mm; equal to
the requested pixels-per-mm up to rounding of the image size)::

    col = u * kx - 0.5          row = v * ky - 0.5

:meth:`MatImage.world_to_pixel` / :meth:`MatImage.pixel_to_world` and
:meth:`MatImage.world_to_pixel_matrix` (a 3 x 3 homogeneous matrix) implement it.  For texture mapping
(UV in ``[0, 1]``, ``v`` down): ``U = u / W``, ``V = v / H``; the image's top-left corner is the world
point ``(x_min, y_max)`` of :meth:`MatSpec.paper_world_rect`.

ChArUco corners and markers
---------------------------
The pattern is an OpenCV ``cv2.aruco.CharucoBoard`` of ``squares_x x squares_y`` squares (top-left
square black, the OpenCV >= 4.6 layout, ``legacy`` false) whose central squares are left blank.
Marker ids are ``first_id, first_id + 1, ...`` over all white squares in OpenCV's order, including
the blanked ones (those ids are simply never printed).  :meth:`MatSpec.corner_ids` lists the corners
that are real printed X-corners (all four squares around them printed), and
:meth:`MatSpec.corner_world` gives their world positions (``z = 0``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import MatSpecError

__all__ = [
    "PAPER_SIZES_MM",
    "MatImage",
    "MatSpec",
    "Patch",
    "render_mat",
]

FloatArray = npt.NDArray[np.float64]

#: Paper sizes in millimetres, landscape (width, height).
PAPER_SIZES_MM: dict[str, tuple[float, float]] = {
    "A4": (297.0, 210.0),
    "A3": (420.0, 297.0),
    "Letter": (279.4, 215.9),
}

#: Games a mat can be printed for (the footprint drawn at the centre).
GAMES = ("ctrl",)

#: Printed colours of the patches, sRGB 0-255 as sent to the printer (R, G, B).
PATCH_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (255, 255, 255),
    "grey": (119, 119, 119),  # CIELAB L* = 50, a* = b* = 0
    "black": (0, 0, 0),
    "blue": (0, 114, 206),
    "pink": (236, 90, 160),
    "yellow": (255, 210, 0),
    "green": (0, 160, 80),
}

_PRINTER_MARGIN_MM = 8.0
_LAYOUT = {  # paper -> (square_mm, band_mm): band = minimum room for labels and patches
    "A4": (20.0, 12.0),
    "A3": (25.0, 14.0),
    "Letter": (20.0, 12.0),
}


@dataclass(frozen=True)
class Patch:
    """A printed patch: name (``white``, ``grey``, ``black``, ``blue``, ``pink``, ``yellow``, ``green``,
    ``white2``, ``grey2``), its printed sRGB colour, and its rectangle in world mm
    ``(x_min, y_min, x_max, y_max)`` (the coloured area, without its thin black frame)."""

    name: str
    rgb: tuple[int, int, int]
    rect_world: tuple[float, float, float, float]

    @property
    def kind(self) -> str:
        """The colour name without a trailing digit (``white2`` -> ``white``)."""
        return self.name.rstrip("0123456789")

    @property
    def centre_world(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.rect_world
        return ((x0 + x1) / 2.0, (y0 + y1) / 2.0)


def _fmt(v: float) -> str:
    """Shortest exact text of a number (``22``, ``18.75``, ``10.96875``): ``parse(str(x)) == x``."""
    r = repr(float(v))
    return r[:-2] if r.endswith(".0") else r


@dataclass(frozen=True)
class MatSpec:
    """Everything needed to print a mat and to interpret a picture of it later (saved beside every
    calibration).

    Build one with :meth:`for_paper` (the usual way), :meth:`parse` (``"ctrl:A3:22"`` or the full
    ``str()`` form) or :meth:`from_json`.  The defaults are the A3 mat for 22 mm blocks.

    Fields: ``game`` (``"ctrl"``), ``paper`` (``A4``/``A3``/``Letter``, landscape), ``block_mm`` (edge of
    one block; the footprint is ``3 * block_mm``), ``dictionary`` (an OpenCV predefined ArUco dictionary
    name), ``square_mm`` / ``marker_mm`` (ChArUco square and marker side), ``squares_x`` /
    ``squares_y`` (squares across / down the sheet), ``first_id`` (first marker id), ``ring`` (how many
    squares deep the printed pattern is around the clear centre), ``patch_mm`` (side of each patch).
    """

    game: str = "ctrl"
    paper: str = "A3"
    block_mm: float = 22.0
    dictionary: str = "DICT_5X5_250"
    square_mm: float = 25.0
    marker_mm: float = 18.75
    squares_x: int = 15
    squares_y: int = 10
    first_id: int = 0
    ring: int = 2
    patch_mm: float = 12.0
    legacy: bool = field(default=False)

    # ------------------------------------------------------------------ construction
    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise MatSpecError(f"unknown game {self.game!r} (expected one of {', '.join(GAMES)})")
        if self.paper not in PAPER_SIZES_MM:
            raise MatSpecError(f"unknown paper {self.paper!r} (expected one of {', '.join(PAPER_SIZES_MM)})")
        for name in ("block_mm", "square_mm", "marker_mm", "patch_mm"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v <= 0:
                raise MatSpecError(f"{name} must be a positive number of millimetres, got {v!r}")
        if self.marker_mm >= self.square_mm:
            raise MatSpecError(
                f"marker_mm ({self.marker_mm!r}) must be smaller than square_mm ({self.square_mm!r})"
            )
        for name in ("squares_x", "squares_y", "ring", "first_id"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool):
                raise MatSpecError(f"{name} must be an integer, got {v!r}")
        if self.ring < 2:
            raise MatSpecError(
                f"ring must be at least 2 squares deep (corners need 4 squares), got {self.ring!r}"
            )
        if self.first_id < 0:
            raise MatSpecError(f"first_id must be >= 0, got {self.first_id!r}")
        if self.squares_x < 2 * self.ring + 1 or self.squares_y < 2 * self.ring + 1:
            raise MatSpecError(
                f"a {self.squares_x}x{self.squares_y} pattern leaves no clear centre "
                f"inside a ring of {self.ring}"
            )
        dict_id = getattr(cv2.aruco, self.dictionary, None) if self.dictionary.startswith("DICT_") else None
        if not isinstance(dict_id, int):
            raise MatSpecError(f"unknown ArUco dictionary {self.dictionary!r} (e.g. 'DICT_5X5_250')")
        n_markers = (self.squares_x * self.squares_y) // 2
        capacity = int(cv2.aruco.getPredefinedDictionary(dict_id).bytesList.shape[0])
        if self.first_id + n_markers > capacity:
            raise MatSpecError(
                f"dictionary {self.dictionary!r} has {capacity} markers, the mat needs ids "
                f"{self.first_id}..{self.first_id + n_markers - 1}"
            )
        w, h = self.paper_size_mm
        bw, bh = self.squares_x * self.square_mm, self.squares_y * self.square_mm
        if bw > w - 2 * _PRINTER_MARGIN_MM or bh > h - 2 * _PRINTER_MARGIN_MM:
            raise MatSpecError(
                f"a {_fmt(bw)} x {_fmt(bh)} mm pattern does not fit on {self.paper} paper "
                f"({_fmt(w)} x {_fmt(h)} mm, {_fmt(_PRINTER_MARGIN_MM)} mm printer margin)"
            )
        cw, ch = self.clear_size_mm
        need = 3 * self.block_mm
        if need > min(cw, ch) - 2.0:
            raise MatSpecError(
                f"block_mm={self.block_mm!r}: the Central Cube footprint ({_fmt(need)} mm) does not fit "
                f"in the "
                f"clear centre ({_fmt(cw)} x {_fmt(ch)} mm) of a {self.paper} mat; use larger paper"
            )
        band = min(self.board_origin_mm) - _PRINTER_MARGIN_MM
        if self.patch_mm > band - 1.0:
            raise MatSpecError(
                f"patch_mm={self.patch_mm!r} does not fit in the {_fmt(band)} mm band around the pattern"
            )

    @classmethod
    def for_paper(
        cls, paper: str = "A3", block_mm: float = 22.0, game: str = "ctrl", first_id: int = 0
    ) -> MatSpec:
        """The standard layout for a paper size: largest ChArUco grid that leaves a band for labels
        and patches.  ``paper`` is matched case-insensitively (``a3``, ``letter``)."""
        canonical = {k.lower(): k for k in PAPER_SIZES_MM}.get(str(paper).lower())
        if canonical is None:
            raise MatSpecError(f"unknown paper {paper!r} (expected one of {', '.join(PAPER_SIZES_MM)})")
        w, h = PAPER_SIZES_MM[canonical]
        square, band = _LAYOUT[canonical]
        sx = int((w - 2 * (_PRINTER_MARGIN_MM + band)) // square)
        sy = int((h - 2 * (_PRINTER_MARGIN_MM + band)) // square)
        return cls(
            game=game,
            paper=canonical,
            block_mm=float(block_mm),
            square_mm=square,
            marker_mm=square * 0.75,
            squares_x=sx,
            squares_y=sy,
            first_id=first_id,
        )

    # ------------------------------------------------------------------ text forms
    def __str__(self) -> str:
        return (
            f"mat game={self.game} paper={self.paper} block_mm={_fmt(self.block_mm)} "
            f"dictionary={self.dictionary} squares={self.squares_x}x{self.squares_y} "
            f"square_mm={_fmt(self.square_mm)} marker_mm={_fmt(self.marker_mm)} first_id={self.first_id} "
            f"ring={self.ring} patch_mm={_fmt(self.patch_mm)}" + (" legacy=1" if self.legacy else "")
        )

    @classmethod
    def parse(cls, text: str) -> MatSpec:
        """Parse ``str(spec)``, or a short form ``PAPER[:BLOCK_MM]`` / ``GAME:PAPER[:BLOCK_MM]``
        (``"A3"``, ``"ctrl:A4:20"``, optionally prefixed ``mat:``) giving the standard layout."""
        s = str(text).strip()
        if s.startswith("mat "):
            kv: dict[str, str] = {}
            for tok in s[4:].split():
                if "=" not in tok:
                    raise MatSpecError(f"cannot read mat specification {text!r}: {tok!r} is not key=value")
                k, v = tok.split("=", 1)
                kv[k] = v
            try:
                sx, sy = (int(n) for n in kv.pop("squares").lower().split("x"))
                spec = cls(
                    game=kv.pop("game"),
                    paper=kv.pop("paper"),
                    block_mm=float(kv.pop("block_mm")),
                    dictionary=kv.pop("dictionary"),
                    squares_x=sx,
                    squares_y=sy,
                    square_mm=float(kv.pop("square_mm")),
                    marker_mm=float(kv.pop("marker_mm")),
                    first_id=int(kv.pop("first_id")),
                    ring=int(kv.pop("ring")),
                    patch_mm=float(kv.pop("patch_mm")),
                    legacy=kv.pop("legacy", "0") in ("1", "true"),
                )
            except (KeyError, ValueError) as exc:
                if isinstance(exc, MatSpecError):
                    raise
                raise MatSpecError(f"cannot read mat specification {text!r}: missing or bad {exc}") from None
            if kv:
                raise MatSpecError(f"cannot read mat specification {text!r}: unknown keys {sorted(kv)!r}")
            return spec
        parts = [p for p in s.split(":") if p]
        if parts and parts[0] == "mat":
            parts = parts[1:]
        game = parts.pop(0).lower() if parts and parts[0].lower() in GAMES else "ctrl"
        if not parts or len(parts) > 2:
            raise MatSpecError(
                f"cannot read mat specification {text!r} (expected e.g. 'A3', 'ctrl:A3:22' or str(MatSpec))"
            )
        block = 22.0
        if len(parts) == 2:
            try:
                block = float(parts[1])
            except ValueError:
                raise MatSpecError(
                    f"cannot read block size {parts[1]!r} in mat specification {text!r}"
                ) from None
        return cls.for_paper(parts[0], block, game)

    def __repr__(self) -> str:
        return f"MatSpec.parse({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """A plain JSON document (``{"kind": "boardside.mat", "version": 1, ...fields}``)."""
        doc: dict[str, Any] = {"kind": "boardside.mat", "version": 1}
        doc.update(asdict(self))
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> MatSpec:
        """Read :meth:`to_json` output; raises :class:`MatSpecError` for anything else."""
        if not isinstance(doc, dict) or doc.get("kind") != "boardside.mat":
            raise MatSpecError(f"not a Boardside mat specification: {str(doc)[:80]!r}")
        if doc.get("version") != 1:
            raise MatSpecError(f"unsupported mat specification version {doc.get('version')!r}")
        fields = {k: v for k, v in doc.items() if k not in ("kind", "version")}
        known = set(cls.__dataclass_fields__)
        unknown = set(fields) - known
        if unknown:
            raise MatSpecError(f"unknown fields in mat specification: {sorted(unknown)!r}")
        try:
            return cls(**fields)
        except TypeError as exc:
            raise MatSpecError(f"bad mat specification: {exc}") from None

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2)

    # ------------------------------------------------------------------ geometry (mm)
    @property
    def paper_size_mm(self) -> tuple[float, float]:
        """(W, H) of the landscape sheet in mm."""
        return PAPER_SIZES_MM[self.paper]

    @property
    def board_origin_mm(self) -> tuple[float, float]:
        """Mat mm (u, v) of the ChArUco pattern's top-left corner (the pattern is centred on the sheet)."""
        w, h = self.paper_size_mm
        return ((w - self.squares_x * self.square_mm) / 2.0, (h - self.squares_y * self.square_mm) / 2.0)

    @property
    def clear_size_mm(self) -> tuple[float, float]:
        """Width and height of the clear centre (blank squares inside the ring)."""
        return (
            (self.squares_x - 2 * self.ring) * self.square_mm,
            (self.squares_y - 2 * self.ring) * self.square_mm,
        )

    @property
    def world_origin_mm(self) -> tuple[float, float]:
        """Mat mm (u, v) of the world origin (the Central Cube footprint's -x/-y table corner)."""
        w, h = self.paper_size_mm
        c = 1.5 * self.block_mm
        return (w / 2.0 - c, h / 2.0 + c)

    def mat_to_world(self, uv: npt.ArrayLike) -> FloatArray:
        """Mat mm ``(..., 2)`` (u right, v down from the paper's top-left) -> world mm ``(..., 2)`` (x, y)."""
        a = np.asarray(uv, dtype=np.float64)
        ou, ov = self.world_origin_mm
        return np.stack([a[..., 0] - ou, ov - a[..., 1]], axis=-1)

    def world_to_mat(self, xy: npt.ArrayLike) -> FloatArray:
        """World mm ``(..., 2)`` (or ``(..., 3)``, z ignored) -> mat mm ``(..., 2)``."""
        a = np.asarray(xy, dtype=np.float64)
        ou, ov = self.world_origin_mm
        return np.stack([a[..., 0] + ou, ov - a[..., 1]], axis=-1)

    def paper_world_rect(self) -> tuple[float, float, float, float]:
        """The sheet in world mm: ``(x_min, y_min, x_max, y_max)``."""
        w, h = self.paper_size_mm
        (x0, y1), (x1, y0) = self.mat_to_world([[0.0, 0.0], [w, h]])
        return (float(x0), float(y0), float(x1), float(y1))

    def footprint_world(self) -> tuple[float, float, float, float]:
        """The Central Cube footprint ``(0, 0, 3s, 3s)`` in world mm."""
        return (0.0, 0.0, 3 * self.block_mm, 3 * self.block_mm)

    def clear_world_rect(self) -> tuple[float, float, float, float]:
        """The clear centre (inside the ChArUco ring) in world mm ``(x_min, y_min, x_max, y_max)``."""
        bu, bv = self.board_origin_mm
        r = self.ring * self.square_mm
        cw, ch = self.clear_size_mm
        (x0, y1), (x1, y0) = self.mat_to_world([[bu + r, bv + r], [bu + r + cw, bv + r + ch]])
        return (float(x0), float(y0), float(x1), float(y1))

    # ------------------------------------------------------------------ ChArUco
    @cached_property
    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))

    @property
    def marker_count(self) -> int:
        """Markers of the full (un-blanked) ChArUco board, ids ``first_id .. first_id + count - 1``."""
        return (self.squares_x * self.squares_y) // 2

    def charuco_board(self) -> cv2.aruco.CharucoBoard:
        """A new OpenCV board (object points in *board* mm: origin top-left of the pattern, y down)."""
        ids = np.arange(self.first_id, self.first_id + self.marker_count, dtype=np.int32)
        board = cv2.aruco.CharucoBoard(
            (self.squares_x, self.squares_y),
            float(self.square_mm),
            float(self.marker_mm),
            self.aruco_dictionary,
            ids,
        )
        board.setLegacyPattern(self.legacy)
        return board

    def is_cleared_square(self, col: int, row: int) -> bool:
        """True when square (col, row) of the pattern is left blank (part of the clear centre)."""
        r = self.ring
        return r <= col < self.squares_x - r and r <= row < self.squares_y - r

    @cached_property
    def _marker_layout(self) -> tuple[npt.NDArray[np.int32], FloatArray]:
        board = self.charuco_board()
        ids = np.asarray(board.getIds(), dtype=np.int32).reshape(-1)
        corners = np.asarray(board.getObjPoints(), dtype=np.float64).reshape(-1, 4, 3)[:, :, :2]
        return ids, corners

    def printed_marker_ids(self) -> list[int]:
        """Marker ids actually printed (not in the clear centre)."""
        return list(self._printed_ids)

    @cached_property
    def _printed_ids(self) -> tuple[int, ...]:
        ids, corners = self._marker_layout
        out = []
        for mid, c in zip(ids, corners, strict=True):
            centre = c.mean(axis=0)
            col, row = int(centre[0] // self.square_mm), int(centre[1] // self.square_mm)
            if not self.is_cleared_square(col, row):
                out.append(int(mid))
        return tuple(out)

    def marker_corners_world(self) -> dict[int, FloatArray]:
        """Printed marker id -> its 4 corners (OpenCV order TL, TR, BR, BL as printed), world mm (4 x 3)."""
        ids, corners = self._marker_layout
        printed = set(self.printed_marker_ids())
        bu, bv = self.board_origin_mm
        out: dict[int, FloatArray] = {}
        for mid, c in zip(ids, corners, strict=True):
            if int(mid) in printed:
                xy = self.mat_to_world(c + np.array([bu, bv]))
                out[int(mid)] = np.column_stack([xy, np.zeros(4)])
        return out

    @cached_property
    def _corner_table(self) -> tuple[npt.NDArray[np.int32], FloatArray]:
        n_cx = self.squares_x - 1
        ids: list[int] = []
        for k in range((self.squares_x - 1) * (self.squares_y - 1)):
            col, row = k % n_cx + 1, k // n_cx + 1  # grid node; squares around: col-1..col, row-1..row
            if not any(self.is_cleared_square(c, r) for c in (col - 1, col) for r in (row - 1, row)):
                ids.append(k)
        board_xy = np.asarray(self.charuco_board().getChessboardCorners(), dtype=np.float64)[:, :2]
        bu, bv = self.board_origin_mm
        world = self.mat_to_world(board_xy + np.array([bu, bv]))
        world3 = np.column_stack([world, np.zeros(len(world))])
        return np.asarray(ids, dtype=np.int32), world3

    def corner_ids(self) -> npt.NDArray[np.int32]:
        """ChArUco corner ids that are real printed X-corners (all four squares around them printed)."""
        return self._corner_table[0].copy()

    def corner_world(self, ids: npt.ArrayLike | None = None) -> FloatArray:
        """World mm ``(N, 3)`` (z = 0) of ChArUco corners ``ids`` (OpenCV ids, default :meth:`corner_ids`).

        Corner id ``k`` is the pattern's inner grid node ``(k % (squares_x-1) + 1, k // (squares_x-1) + 1)``
        counted in squares from the pattern's top-left corner."""
        table = self._corner_table[1]
        sel = self._corner_table[0] if ids is None else np.asarray(ids, dtype=np.int64).reshape(-1)
        return table[sel].copy()

    # ------------------------------------------------------------------ patches and labels
    def patches(self) -> list[Patch]:
        """All printed patches with their world rectangles (see :class:`Patch`)."""
        w, h = self.paper_size_mm
        _bu, bv = self.board_origin_mm
        p = self.patch_mm
        gap = max(2.0, p / 4.0)
        # -y band (bottom edge): white grey black | label | blue pink yellow green
        v_bot = (bv + self.squares_y * self.square_mm + (h - _PRINTER_MARGIN_MM)) / 2.0 - p / 2.0
        v_top = (bv + _PRINTER_MARGIN_MM) / 2.0 - p / 2.0
        label_half = self.label_height_mm * 1.6
        out: list[Patch] = []

        def add(name: str, u0: float, v0: float) -> None:
            (x0, y1), (x1, y0) = self.mat_to_world([[u0, v0], [u0 + p, v0 + p]])
            out.append(
                Patch(
                    name,
                    PATCH_COLOURS[name.rstrip("0123456789")],
                    (float(x0), float(y0), float(x1), float(y1)),
                )
            )

        left = ["white", "grey", "black"]
        for i, name in enumerate(reversed(left)):
            add(name, w / 2.0 - label_half - gap - (i + 1) * p - i * gap, v_bot)
        for i, name in enumerate(["blue", "pink", "yellow", "green"]):
            add(name, w / 2.0 + label_half + gap + i * (p + gap), v_bot)
        # +y band (top edge): a second white/grey pair left of the label
        for i, name in enumerate(["grey2", "white2"]):
            add(name, w / 2.0 - label_half - gap - (i + 1) * p - i * gap, v_top)
        return out

    @property
    def label_height_mm(self) -> float:
        """Cap height of the side names."""
        return min(8.0, self.patch_mm * 0.6)

    def side_label_positions(self) -> dict[str, tuple[float, float]]:
        """Side name -> world mm (x, y) of the label's centre."""
        w, h = self.paper_size_mm
        bu, bv = self.board_origin_mm
        bw, bh = self.squares_x * self.square_mm, self.squares_y * self.square_mm
        m = _PRINTER_MARGIN_MM
        mat = {
            "+x": ((bu + bw + w - m) / 2.0, h / 2.0),
            "-x": ((bu + m) / 2.0, h / 2.0),
            "+y": (w / 2.0, (bv + m) / 2.0),
            "-y": (w / 2.0, (bv + bh + h - m) / 2.0),
        }
        return {k: (float(self.mat_to_world(v)[0]), float(self.mat_to_world(v)[1])) for k, v in mat.items()}

    def describe(self) -> str:
        """One human line printed on the mat and in the CLI."""
        return (
            f"Boardside {self.game.upper()} mat  {self.paper}  block {_fmt(self.block_mm)} mm  "
            f"{self.dictionary} {self.squares_x}x{self.squares_y} sq {_fmt(self.square_mm)} mm "
            f"mk {_fmt(self.marker_mm)} mm id {self.first_id}  PRINT AT 100 %"
        )


# ====================================================================== rendering
def _coverage(edges_mm: FloatArray, n_px: int, length_mm: float) -> npt.NDArray[np.float32]:
    """(n_px, n_seg) fraction of each pixel covered by each segment [edges[j], edges[j+1])."""
    px = length_mm / n_px
    a = np.arange(n_px, dtype=np.float64)[:, None] * px
    b = a + px
    lo = np.maximum(a, edges_mm[None, :-1])
    hi = np.minimum(b, edges_mm[None, 1:])
    out: npt.NDArray[np.float32] = (np.clip(hi - lo, 0.0, None) / px).astype(np.float32)
    return out


class Painter:
    """Axis-aligned rectangles in mat mm, later rasterised with exact box-filter antialiasing."""

    def __init__(self, w: float, h: float) -> None:
        self.w, self.h = w, h
        self.rects: list[tuple[float, float, float, float, tuple[int, int, int]]] = []

    def rect(self, u0: float, v0: float, u1: float, v1: float, bgr: tuple[int, int, int]) -> None:
        self.rects.append((max(0.0, u0), max(0.0, v0), min(self.w, u1), min(self.h, v1), bgr))

    def frame(self, u0: float, v0: float, u1: float, v1: float, t: float, bgr: tuple[int, int, int]) -> None:
        self.rect(u0 - t, v0 - t, u1 + t, v0, bgr)
        self.rect(u0 - t, v1, u1 + t, v1 + t, bgr)
        self.rect(u0 - t, v0, u0, v1, bgr)
        self.rect(u1, v0, u1 + t, v1, bgr)

    def render(self, width: int, height: int) -> npt.NDArray[np.uint8]:
        xs = np.unique(np.array([0.0, self.w] + [r[0] for r in self.rects] + [r[2] for r in self.rects]))
        ys = np.unique(np.array([0.0, self.h] + [r[1] for r in self.rects] + [r[3] for r in self.rects]))
        table = np.full((len(ys) - 1, len(xs) - 1, 3), 255.0, dtype=np.float32)
        for u0, v0, u1, v1, bgr in self.rects:
            i0, i1 = np.searchsorted(ys, [v0, v1])
            j0, j1 = np.searchsorted(xs, [u0, u1])
            table[i0:i1, j0:j1] = bgr
        cy = _coverage(ys, height, self.h)
        cx = _coverage(xs, width, self.w)
        out = np.empty((height, width, 3), dtype=np.uint8)
        for k in range(3):
            chan = cy @ table[:, :, k] @ cx.T
            out[:, :, k] = np.clip(chan + 0.5, 0, 255).astype(np.uint8)
        return out


def paint_charuco(
    pt: Painter,
    board: cv2.aruco.CharucoBoard,
    origin_mm: tuple[float, float],
    skip: Callable[[int, int], bool] | None = None,
) -> None:
    """Paint a ChArUco board (board mm, y down) at ``origin_mm``; ``skip(col, row)`` squares stay blank."""
    sx, sy = board.getChessboardSize()
    sq = float(board.getSquareLength())
    bu, bv = origin_mm
    black = (0, 0, 0)
    blank = skip or (lambda c, r: False)
    for row in range(sy):
        for col in range(sx):
            if (row + col) % 2 == 0 and not blank(col, row):
                pt.rect(bu + col * sq, bv + row * sq, bu + (col + 1) * sq, bv + (row + 1) * sq, black)
    ids = np.asarray(board.getIds(), dtype=np.int32).reshape(-1)
    corners = np.asarray(board.getObjPoints(), dtype=np.float64).reshape(-1, 4, 3)
    dictionary = board.getDictionary()
    n_bits = int(dictionary.markerSize) + 2
    for mid, c in zip(ids, corners, strict=True):
        centre = c[:, :2].mean(axis=0)
        if blank(int(centre[0] // sq), int(centre[1] // sq)):
            continue
        bits = cv2.aruco.generateImageMarker(dictionary, int(mid), n_bits, borderBits=1)
        u0, v0 = bu + c[0, 0], bv + c[0, 1]
        cell = (c[1, 0] - c[0, 0]) / n_bits
        for r in range(n_bits):
            for q in range(n_bits):
                if bits[r, q] == 0:
                    pt.rect(u0 + q * cell, v0 + r * cell, u0 + (q + 1) * cell, v0 + (r + 1) * cell, black)


@dataclass(frozen=True, eq=False)
class MatImage:
    """A rendered mat: ``image`` (H x W x 3 BGR uint8) covering exactly the sheet, and the mappings
    between its pixels and world mm (see the module docstring for the pixel convention)."""

    spec: MatSpec
    image: npt.NDArray[np.uint8]

    @property
    def px_per_mm(self) -> tuple[float, float]:
        """(kx, ky): pixels per mm along u and v (image size / paper size)."""
        w, h = self.spec.paper_size_mm
        return (self.image.shape[1] / w, self.image.shape[0] / h)

    def world_to_pixel_matrix(self) -> FloatArray:
        """3 x 3 matrix ``M`` with ``[col, row, 1]^T ~ M @ [x, y, 1]^T`` (world mm -> pixel)."""
        kx, ky = self.px_per_mm
        ou, ov = self.spec.world_origin_mm
        return np.array(
            [[kx, 0.0, ou * kx - 0.5], [0.0, -ky, ov * ky - 0.5], [0.0, 0.0, 1.0]], dtype=np.float64
        )

    def world_to_pixel(self, xy: npt.ArrayLike) -> FloatArray:
        """World mm ``(..., 2)`` -> pixel ``(..., 2)`` (col, row)."""
        kx, ky = self.px_per_mm
        uv = self.spec.world_to_mat(xy)
        return np.stack([uv[..., 0] * kx - 0.5, uv[..., 1] * ky - 0.5], axis=-1)

    def pixel_to_world(self, cr: npt.ArrayLike) -> FloatArray:
        """Pixel ``(..., 2)`` (col, row) -> world mm ``(..., 2)``."""
        a = np.asarray(cr, dtype=np.float64)
        kx, ky = self.px_per_mm
        return self.spec.mat_to_world(np.stack([(a[..., 0] + 0.5) / kx, (a[..., 1] + 0.5) / ky], axis=-1))


_TEXT_FONT = cv2.FONT_HERSHEY_SIMPLEX


def _text_patch(text: str, cap_px: float, thickness: int) -> npt.NDArray[np.uint8]:
    """White canvas with black text of the given cap height (pixels)."""
    (tw, th), base = cv2.getTextSize(text, _TEXT_FONT, 1.0, thickness)
    scale = cap_px / max(th, 1)
    (tw, th), base = cv2.getTextSize(text, _TEXT_FONT, scale, thickness)
    pad = thickness + 2
    canvas = np.full((th + base + 2 * pad, tw + 2 * pad), 255, dtype=np.uint8)
    cv2.putText(canvas, text, (pad, pad + th), _TEXT_FONT, scale, 0, thickness, cv2.LINE_AA)
    return canvas


def _stamp(img: npt.NDArray[np.uint8], patch: npt.NDArray[np.uint8], centre_px: tuple[float, float]) -> None:
    ph, pw = patch.shape
    c0 = round(centre_px[0] - pw / 2.0)
    r0 = round(centre_px[1] - ph / 2.0)
    r1, c1 = min(img.shape[0], r0 + ph), min(img.shape[1], c0 + pw)
    pr0, pc0 = max(0, -r0), max(0, -c0)
    r0, c0 = max(0, r0), max(0, c0)
    if r1 <= r0 or c1 <= c0:
        return
    sub = patch[pr0 : pr0 + (r1 - r0), pc0 : pc0 + (c1 - c0)]
    img[r0:r1, c0:c1] = np.minimum(img[r0:r1, c0:c1], sub)


def render_mat(spec: MatSpec, px_per_mm: float = 300 / 25.4) -> MatImage:
    """Render the mat at ``px_per_mm`` (default 300 dpi) as a :class:`MatImage` (BGR uint8, true scale).

    The image covers the whole landscape sheet; its size is ``round(W * px_per_mm) x round(H * px_per_mm)``.
    Squares, markers, patches and outlines are exact box-filtered (area-antialiased) rectangles, so
    edges fall at their true sub-pixel positions; text is drawn with OpenCV's Hershey font.
    """
    if not (isinstance(px_per_mm, (int, float)) and math.isfinite(px_per_mm) and 0.5 <= px_per_mm <= 100):
        raise MatSpecError(f"px_per_mm must be between 0.5 and 100, got {px_per_mm!r}")
    w, h = spec.paper_size_mm
    width, height = max(1, round(w * px_per_mm)), max(1, round(h * px_per_mm))
    pt = Painter(w, h)
    black = (0, 0, 0)
    bu, bv = spec.board_origin_mm

    paint_charuco(pt, spec.charuco_board(), (bu, bv), spec.is_cleared_square)

    # Central Cube footprint: 3 x 3 cells drawn thin, outline 1 mm outside the footprint
    s = spec.block_mm
    ou, ov = spec.world_origin_mm
    fu0, fv0, fu1, fv1 = ou, ov - 3 * s, ou + 3 * s, ov
    for i in (1, 2):
        pt.rect(fu0 + i * s - 0.15, fv0, fu0 + i * s + 0.15, fv1, (160, 160, 160))
        pt.rect(fu0, fv0 + i * s - 0.15, fu1, fv0 + i * s + 0.15, (160, 160, 160))
    pt.frame(fu0, fv0, fu1, fv1, 1.0, (40, 40, 40))
    # origin tick: a small solid square just outside the footprint's (0, 0) corner
    pt.rect(fu0 - 4.0, fv1 + 1.0, fu0 - 1.0, fv1 + 4.0, (40, 40, 40))

    # patches with a thin black frame
    for p in spec.patches():
        (u0, v1), (u1, v0) = spec.world_to_mat(
            [[p.rect_world[0], p.rect_world[1]], [p.rect_world[2], p.rect_world[3]]]
        )
        r, g, b = p.rgb
        pt.rect(u0, v0, u1, v1, (b, g, r))
        pt.frame(u0, v0, u1, v1, 0.5, black)

    # 50 mm scale bar in the +y band, right of the label, with 10 mm ticks
    v_bar = (bv + _PRINTER_MARGIN_MM) / 2.0
    u_bar = w / 2.0 + spec.label_height_mm * 1.6 + 6.0
    pt.rect(u_bar, v_bar - 0.5, u_bar + 50.0, v_bar + 0.5, black)
    for i in range(6):
        pt.rect(u_bar + 10.0 * i - 0.25, v_bar - 2.5, u_bar + 10.0 * i + 0.25, v_bar + 0.5, black)

    img = pt.render(width, height)
    mi = MatImage(spec, img)
    kx, ky = mi.px_per_mm
    k = (kx + ky) / 2.0

    gray = np.full((height, width), 255, dtype=np.uint8)
    # side names, each readable from its own side (text "up" points away from that side's player)
    cap = spec.label_height_mm * k
    thick = max(1, round(cap / 8))
    rot = {"-y": 0, "+x": 1, "+y": 2, "-x": 3}  # np.rot90 counter-clockwise turns
    for side, pos in spec.side_label_positions().items():
        patch = np.rot90(_text_patch(side, cap, thick), rot[side])
        _stamp(gray, np.ascontiguousarray(patch), tuple(mi.world_to_pixel(pos)))  # type: ignore[arg-type]
    # info line and scale-bar caption
    small = 2.2 * k
    info = _text_patch(spec.describe(), small, max(1, round(small / 9)))
    info_u = (bu + (w / 2.0 - spec.label_height_mm * 1.6 - 2 * spec.patch_mm - 8.0)) / 2.0
    info_centre = (info_u * kx, (bv + _PRINTER_MARGIN_MM) / 2.0 * ky)
    if info.shape[1] > (w / 2.0 - spec.label_height_mm * 1.6 - 2 * spec.patch_mm - 8.0 - bu) * kx:
        info_centre = (info_centre[0], (_PRINTER_MARGIN_MM + 2.0) * ky)  # too long: put it nearer the edge
    _stamp(gray, info, info_centre)
    cap50 = _text_patch("50 mm", small, max(1, round(small / 9)))
    _stamp(gray, cap50, ((u_bar + 25.0) * kx, (v_bar + 4.5) * ky))
    np.minimum(img, gray[:, :, None], out=img)
    return mi


def mat_world_points_in_view(spec: MatSpec) -> dict[str, Any]:
    """A summary (for docs and the CLI ``--json``) of where things are in world mm."""
    return {
        "paper_world_rect": list(spec.paper_world_rect()),
        "footprint_world": list(spec.footprint_world()),
        "clear_world_rect": list(spec.clear_world_rect()),
        "side_labels": {k: list(v) for k, v in spec.side_label_positions().items()},
        "patches": [
            {"name": p.name, "rgb": list(p.rgb), "rect_world": list(p.rect_world)} for p in spec.patches()
        ],
        "charuco_corners": len(spec.corner_ids()),
        "printed_markers": len(spec.printed_marker_ids()),
    }
