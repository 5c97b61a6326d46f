"""Printing boards: sheet layout (tiling), pages, and ``boardside board print|show`` (issue #9)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from boardside.cli import main
from calibration.board_print import (
    PRINTER_MARGIN_MM,
    SHEET_BORDER_MM,
    BoardPrintError,
    layout_sheets,
    render_sheet,
)
from calibration.boards import board_spec
from engine.quirky.scenario import builtin_ids


def test_small_board_fits_one_sheet_centred() -> None:
    spec = board_spec("bandera")
    lay = layout_sheets(spec, "A3")
    assert not lay.tiled and (lay.rows, lay.cols) == (1, 1)
    assert lay.sheets[0].region_mm == spec.extent_mm
    img = render_sheet(lay, lay.sheets[0], 2.0)
    assert img.shape[:2] == (round(297 * 2.0), round(420 * 2.0))
    det = cv2.aruco.ArucoDetector(spec.aruco_dictionary())
    _, ids, _ = det.detectMarkers(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == sorted(spec.marker_ids)


@pytest.mark.parametrize("paper", ["A4", "A3", "Letter"])
@pytest.mark.parametrize("cell", [50.0, 100.0, 150.0])
def test_tiles_cover_the_board_and_every_sheet_holds_whole_markers(paper: str, cell: float) -> None:
    for sid in builtin_ids():
        spec = board_spec("quirky", scenario=sid, cell_mm=cell)
        lay = layout_sheets(spec, paper)
        w, h = lay.page_mm
        room = (w - 2 * PRINTER_MARGIN_MM, h - 2 * PRINTER_MARGIN_MM)
        if lay.tiled:
            room = (room[0] - 2 * SHEET_BORDER_MM, room[1] - 2 * SHEET_BORDER_MM)
        area = 0.0
        seen: set[int] = set()
        for s in lay.sheets:
            x0, y0, x1, y1 = s.region_mm
            assert x1 - x0 <= room[0] + 1e-6 and y1 - y0 <= room[1] + 1e-6
            area += (x1 - x0) * (y1 - y0)
            assert s.marker_ids, f"{sid} {cell} {paper}: sheet {s.row},{s.col} has no marker"
            seen |= set(s.marker_ids)
        bw, bh = spec.size_mm
        assert area == pytest.approx(bw * bh)
        assert seen == set(spec.marker_ids), "every marker is printed whole on some sheet"
        assert len(lay.sheets) == lay.rows * lay.cols


def test_tiled_sheet_carries_label_and_its_markers() -> None:
    spec = board_spec("quirky", scenario="kitchen-crumbs", cell_mm=150)
    lay = layout_sheets(spec, "A4")
    assert lay.tiled
    sheet = lay.sheets[len(lay.sheets) // 2]
    img = render_sheet(lay, sheet, 3.0)
    det = cv2.aruco.ArucoDetector(spec.aruco_dictionary())
    _, ids, _ = det.detectMarkers(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY))
    found = set() if ids is None else {int(i) for i in ids.ravel()}
    assert set(sheet.marker_ids) <= found
    assert found <= set(spec.marker_ids)
    # the border around the tile is white except for the marks and the label
    assert np.mean(img[: round(PRINTER_MARGIN_MM * 3)]) > 250


def test_bad_paper_and_huge_cells() -> None:
    with pytest.raises(BoardPrintError, match="unknown paper 'B5'"):
        layout_sheets(board_spec("bandera"), "B5")
    with pytest.raises(BoardPrintError, match="does not fit on A4"):
        layout_sheets(board_spec("quirky", scenario="fetch", cell_mm=250), "A4")
    with pytest.raises(BoardPrintError, match="every sheet holds a whole marker"):
        layout_sheets(board_spec("quirky", scenario="fetch", cell_mm=250), "A3")


def test_cli_print_writes_pdf_preview_and_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.pdf"
    rc = main(["board", "print", "bandera", "--paper", "A4", "-o", str(out), "--png", "--dpi", "100", "--json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["board"]["name"] == "bandera 10x7" and len(doc["print"]["sheets"]) == 4
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", data)) == 4
    assert b"/PrintScaling /None" in data
    assert cv2.imread(str(tmp_path / "b.png")) is not None
    saved = json.loads((tmp_path / "b.json").read_text())
    assert saved["board"]["fiducials"] == doc["board"]["fiducials"]


def test_cli_print_quirky_scenario_file_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.quirky.scenario import builtin_text

    f = tmp_path / "s.toml"
    f.write_text(builtin_text("fetch"))
    out = tmp_path / "q.pdf"
    assert main(["board", "print", "quirky", "--scenario", str(f), "--paper", "A3", "-o", str(out), "--dpi", "60"]) == 0
    text = capsys.readouterr().out
    assert "quirky:fetch" in text and "2 A3 sheet" in text
    assert main(["board", "show", "gridopolis", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["board"]["cols"] == 7 and doc["board"]["game"] == "gridopolis"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["board", "print", "chess"], "unknown game 'chess'"),
        (["board", "print", "quirky", "--scenario", "nope"], "unknown scenario 'nope'"),
        (["board", "print", "quirky", "--scenario", "fetch", "--cell-mm", "290"], "does not fit on A4"),
        (["board", "print", "bandera", "--paper", "A5"], "unknown paper 'A5'"),
        (["board", "print", "bandera", "-o", "x.svg"], "must end in .pdf"),
        (["board", "print", "bandera", "--dpi", "5000"], "dpi must be between"),
        (["board", "show", "quirky"], "needs a scenario"),
    ],
)
def test_cli_bad_input_one_line_exit_2(
    args: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not list(tmp_path.glob("*.pdf"))
