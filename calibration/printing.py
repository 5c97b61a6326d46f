"""Writing the mat (or a calibration target) as a true-scale PDF or a PNG at a given dpi.

The PDF page is exactly the paper size (landscape) and holds the rendered image placed at
``0, 0`` with the paper's width and height in millimetres, so printing at "actual size / 100 %"
(the PDF asks viewers not to scale: ``/PrintScaling /None``) gives the true scale.  The PNG carries
its dpi (``pHYs`` chunk) so image tools know its physical size too.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import MatSpecError
from calibration.mat import MatSpec, render_mat

__all__ = ["write_mat", "write_pdf", "write_pdf_pages", "write_png"]

MM_PER_INCH = 25.4


def _png_bytes(image: npt.NDArray[np.uint8], dpi: float) -> bytes:
    from PIL import Image  # pillow comes with fpdf2

    rgb = cv2.cvtColor(image, cv2.COLOR_BGR2RGB) if image.ndim == 3 else image
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb)).save(buf, format="PNG", dpi=(dpi, dpi), optimize=False)
    return buf.getvalue()


def write_png(path: str | os.PathLike[str], image: npt.NDArray[np.uint8], dpi: float) -> None:
    """Write ``image`` as PNG tagged with ``dpi`` (atomically)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_bytes(_png_bytes(image, dpi))
    os.replace(tmp, p)


def write_pdf(
    path: str | os.PathLike[str],
    image: npt.NDArray[np.uint8],
    size_mm: tuple[float, float],
    title: str,
    dpi: float,
) -> None:
    """A one-page PDF of ``size_mm`` (width, height) showing ``image`` edge to edge."""
    from fpdf import FPDF, ViewerPreferences

    w, h = size_mm
    pdf = FPDF(orientation="L" if w >= h else "P", unit="mm", format=(min(w, h), max(w, h)))
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    pdf.set_title(title)
    pdf.set_creator("Boardside")
    pdf.viewer_preferences = ViewerPreferences(print_scaling="None")
    pdf.add_page()
    pdf.image(io.BytesIO(_png_bytes(image, dpi)), x=0, y=0, w=w, h=h)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    pdf.output(str(tmp))
    os.replace(tmp, p)


def write_pdf_pages(
    path: str | os.PathLike[str],
    pages: list[tuple[npt.NDArray[np.uint8], tuple[float, float]]],
    title: str,
    dpi: float,
) -> None:
    """A PDF with one page per ``(image, (width_mm, height_mm))``, each image edge to edge at true size
    (tiled boards: :mod:`calibration.board_print`)."""
    from fpdf import FPDF, ViewerPreferences

    pdf = FPDF(unit="mm")
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    pdf.set_title(title)
    pdf.set_creator("Boardside")
    pdf.viewer_preferences = ViewerPreferences(print_scaling="None")
    for image, (w, h) in pages:
        pdf.add_page(orientation="L" if w >= h else "P", format=(min(w, h), max(w, h)))
        pdf.image(io.BytesIO(_png_bytes(image, dpi)), x=0, y=0, w=w, h=h)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    pdf.output(str(tmp))
    os.replace(tmp, p)


def write_mat(path: str | os.PathLike[str], spec: MatSpec, dpi: float = 300.0) -> Path:
    """Render ``spec`` at ``dpi`` and write it as PDF or PNG (chosen by the suffix).  Returns the path."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise MatSpecError(f"output must end in .pdf or .png, got {str(p)!r}")
    if not 50 <= dpi <= 1200:
        raise MatSpecError(f"dpi must be between 50 and 1200, got {dpi!r}")
    mi = render_mat(spec, dpi / MM_PER_INCH)
    if suffix == ".png":
        write_png(p, mi.image, dpi)
    else:
        write_pdf(p, mi.image, spec.paper_size_mm, spec.describe(), dpi)
    return p
