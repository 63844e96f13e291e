#!/usr/bin/env python3
"""Generate the "Tahlia Brennan" synthetic personal profile (home/) and its questions (qa.json,
split.json).

Python 3.11 standard library only. External programs: ffmpeg (PNG pictures, audio encoding,
the MP4 screen recording) and espeak-ng (voice memos; skipped with a warning when missing).
The writer functions (PDF, DOCX, XLSX, PPTX, EML, ICS, PNG, voice notes) are copied from
../orla-devlin/generate.py, adapted to Australia/Melbourne, plus an mbox writer, MP3/M4A
encoding and an MP4 writer.

Deterministic: every random choice comes from a named, seeded generator, every timestamp
inside zips / PDFs / e-mails / calendars is fixed, and file mtimes are set with os.utime
to dates that fit the story (git does not keep mtimes: re-run this script to restore them).

    python3 generate.py            # writes home/ (from scratch), qa.json and split.json
    python3 generate.py --check    # also checks every gold path and evidence string
"""

from __future__ import annotations

import argparse
import base64
import csv
import datetime as dt
import io
import json
import math
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import wave
import xml.etree.ElementTree as ET
import zipfile
from email.header import Header
from email.utils import formataddr
from pathlib import Path
from xml.sax.saxutils import escape as xesc
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
HOME = HERE / "home"
QA_PATH = HERE / "qa.json"
SPLIT_PATH = HERE / "split.json"
TZ = ZoneInfo("Australia/Melbourne")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
FONT_ITALIC = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf"
SPLIT_SEED = 20250620

# relpath -> datetime (local, Australia/Melbourne) used for the file's mtime
MTIMES: dict[str, dt.datetime] = {}
# relpath -> structured content used to resolve evidence locators and to check evidence
REG: dict[str, dict] = {}
WARNINGS: list[str] = []
# facts shared between files and questions
FACTS: dict[str, object] = {}


def rng(name: str) -> random.Random:
    """A generator of its own for every purpose: adding content elsewhere never shifts it."""
    return random.Random("tahlia-brennan/" + name)


def when(s: str) -> dt.datetime:
    """'2025-03-04 18:20' (Australia/Melbourne wall clock) -> aware datetime."""
    fmt = "%Y-%m-%d %H:%M:%S" if s.count(":") == 2 else "%Y-%m-%d %H:%M"
    return dt.datetime.strptime(s, fmt).replace(tzinfo=TZ)


def put(rel: str, data, mtime: str) -> None:
    path = HOME / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    MTIMES[rel] = when(mtime)


def day(s: str) -> dt.date:
    return dt.date.fromisoformat(s)


def aud(x: float, sign: str = "$") -> str:
    """1240.5 -> '$1,240.50' (Australian style)."""
    neg = x < 0
    s = f"{sign}{abs(x):,.2f}"
    return "-" + s if neg else s


def au_date(d: dt.date) -> str:
    return d.strftime("%d/%m/%Y")


def short_date(d: dt.date) -> str:
    return f"{d.day} {d.strftime('%b %Y')}"


def long_date(d: dt.date) -> str:
    return f"{d.strftime('%A')} {d.day} {d.strftime('%B %Y')}"


# ----------------------------------------------------------------------------------------
# PDF (hand-written, Helvetica / Helvetica-Bold, WinAnsiEncoding, uncompressed streams)
# ----------------------------------------------------------------------------------------

_HELV = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
         556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
         1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
         667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
         333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
         556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584]


def text_width(s: str, size: float, bold: bool = False) -> float:
    w = 0
    for c in s:
        o = ord(c)
        w += _HELV[o - 32] if 32 <= o < 127 else 556
    return w * size / 1000 * (1.06 if bold else 1.0)


def pdf_string(s: str) -> str:
    out = []
    for b in s.encode("cp1252"):
        if b in (0x28, 0x29, 0x5C):
            out.append("\\" + chr(b))
        elif 32 <= b < 127:
            out.append(chr(b))
        else:
            out.append("\\%03o" % b)
    return "(" + "".join(out) + ")"


def pdf_date(d: dt.datetime) -> str:
    off = d.utcoffset() or dt.timedelta(0)
    mins = int(off.total_seconds() // 60)
    sign = "+" if mins >= 0 else "-"
    return d.strftime("D:%Y%m%d%H%M%S") + f"{sign}{abs(mins)//60:02d}'{abs(mins)%60:02d}'"


class PDF:
    W, H = 595, 842  # A4 points
    LEFT, RIGHT, TOP, BOTTOM = 56, 539, 790, 64

    def __init__(self, title: str, author: str, created: str, producer: str = "Dentate profile generator"):
        self.title, self.author, self.producer = title, author, producer
        self.created = when(created)
        self.pages: list[list[tuple]] = []
        self.texts: list[list[str]] = []
        self.mono: list[list[bool]] = []
        self.footer: str | None = None
        self.new_page()

    # layout ------------------------------------------------------------------------
    def new_page(self) -> None:
        self.pages.append([])
        self.texts.append([])
        self.mono.append([])
        self.y = self.TOP

    def ensure(self, h: float) -> None:
        if self.y - h < self.BOTTOM:
            self.new_page()

    def line(self, s: str, size: float = 10, bold: bool = False, x: float | None = None, lead: float = 1.45, mono: bool = False) -> None:
        self.ensure(size * lead)
        self.y -= size * lead
        font = ("F4" if bold else "F3") if mono else ("F2" if bold else "F1")
        self.pages[-1].append((font, size, self.LEFT if x is None else x, self.y, s))
        self.texts[-1].append(s)
        self.mono[-1].append(mono)

    def space(self, h: float = 6) -> None:
        self.y -= h

    def heading(self, s: str, size: float = 14) -> None:
        self.ensure(size * 3)
        self.space(size * 0.4)
        self.line(s, size, True)
        self.space(2)

    def para(self, s: str, size: float = 10, bold: bool = False, indent: float = 0) -> None:
        width = self.RIGHT - self.LEFT - indent
        words, cur = s.split(), ""
        for w in words:
            cand = (cur + " " + w).strip()
            if text_width(cand, size, bold) > width and cur:
                self.line(cur, size, bold, self.LEFT + indent)
                cur = w
            else:
                cur = cand
        if cur:
            self.line(cur, size, bold, self.LEFT + indent)
        self.space(3)

    def row(self, cells: list[str], xs: list[float], size: float = 9.5, bold: bool = False, right: set[int] | None = None) -> None:
        """One table row as ONE aligned text line in Courier: each cell padded to its column
        (column widths from the x positions), so the row reads left to right in any extractor."""
        right = right or set()
        size = min(size, 9.0)
        charw = 0.6 * size
        xs = list(xs)
        origin = xs[0]
        out = ""
        for i, c in enumerate(cells):
            start = round((xs[i] - origin) / charw)
            end = round(((xs[i + 1] if i + 1 < len(xs) else self.RIGHT) - origin) / charw)
            if len(out) < start:
                out = out.ljust(start)
            elif out and not out.endswith(" "):
                out += " "
            if i in right:
                out += c.rjust(end - len(out) - 1) if end - len(out) - 1 > len(c) else c
            else:
                out += c
        out = out.rstrip()
        if origin + len(out) * charw > self.W - 40:
            raise SystemExit(f"PDF table row too wide for the page: {out!r}")
        self.line(out, size, bold, x=origin, lead=1.55, mono=True)

    def table(self, header: list[str], rows: list[list[str]], xs: list[float], size: float = 9.5, right: set[int] | None = None) -> None:
        self.row(header, xs, size, True, right)
        for r in rows:
            self.row(r, xs, size, False, right)
        self.space(4)

    # output ------------------------------------------------------------------------
    def build(self) -> bytes:
        n_pages = len(self.pages)
        objs: list[bytes] = []
        kids = " ".join(f"{8 + 2 * i} 0 R" for i in range(n_pages))
        objs.append(b"<< /Type /Catalog /Pages 2 0 R >>")
        objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
        objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
        objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>")
        objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold /Encoding /WinAnsiEncoding >>")
        d = pdf_date(self.created)
        objs.append(
            ("<< /Title " + pdf_string(self.title) + " /Author " + pdf_string(self.author)
             + " /Producer " + pdf_string(self.producer)
             + f" /CreationDate ({d}) /ModDate ({d}) >>").encode("latin-1"))
        for i, items in enumerate(self.pages):
            ops = []
            for font, size, x, y, s in items:
                ops.append(f"BT /{font} {size:g} Tf {x:.2f} {y:.2f} Td {pdf_string(s)} Tj ET")
            if self.footer:
                foot = f"{self.footer}    Page {i + 1} of {n_pages}"
                ops.append(f"BT /F1 7.5 Tf {self.LEFT} 36 Td {pdf_string(foot)} Tj ET")
            stream = ("\n".join(ops) + "\n").encode("latin-1")
            objs.append(
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {self.W} {self.H}] "
                f"/Resources << /Font << /F1 3 0 R /F2 4 0 R /F3 5 0 R /F4 6 0 R >> >> /Contents {9 + 2 * i} 0 R >>".encode())
            objs.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"endstream")
        out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for k, body in enumerate(objs, start=1):
            offsets.append(len(out))
            out += f"{k} 0 obj\n".encode() + body + b"\nendobj\n"
        xref = len(out)
        out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
        for off in offsets:
            out += f"{off:010d} 00000 n \n".encode()
        out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R /Info 7 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
        return bytes(out)

    def save(self, rel: str, mtime: str) -> None:
        put(rel, self.build(), mtime)
        REG[rel] = {"kind": "pdf", "pages": [list(t) for t in self.texts], "mono": [list(m) for m in self.mono]}


# ----------------------------------------------------------------------------------------
# Zip-based OOXML (docx, xlsx, pptx)
# ----------------------------------------------------------------------------------------

def zip_bytes(entries: list[tuple[str, str | bytes]], stamp: str) -> bytes:
    d = when(stamp)
    date_time = (d.year, d.month, d.day, d.hour, d.minute, d.second - d.second % 2)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, date_time=date_time)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3
            zi.external_attr = 0o100644 << 16
            z.writestr(zi, data.encode("utf-8") if isinstance(data, str) else data)
    return buf.getvalue()


def iso_z(stamp: str) -> str:
    return when(stamp).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def core_xml(title: str, author: str, created: str, modified: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
            'xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
            f'<dc:title>{xesc(title)}</dc:title><dc:creator>{xesc(author)}</dc:creator>'
            f'<cp:lastModifiedBy>{xesc(author)}</cp:lastModifiedBy>'
            f'<dcterms:created xsi:type="dcterms:W3CDTF">{iso_z(created)}</dcterms:created>'
            f'<dcterms:modified xsi:type="dcterms:W3CDTF">{iso_z(modified)}</dcterms:modified>'
            '</cp:coreProperties>')


RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
OD_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
CORE_REL = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"


def rels_xml(rels: list[tuple[str, str, str]]) -> str:
    body = "".join(f'<Relationship Id="{i}" Type="{t}" Target="{xesc(target)}"/>' for i, t, target in rels)
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{RELS_NS}">{body}</Relationships>'


W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


class Docx:
    """Paragraphs, headings, tables and explicit page breaks (each page starts at a break)."""

    def __init__(self, title: str, author: str, created: str, modified: str):
        self.title, self.author, self.created, self.modified = title, author, created, modified
        self.parts: list[str] = []
        self.pages: list[list[str]] = [[]]

    def _run(self, text: str, bold: bool = False) -> str:
        rpr = "<w:rPr><w:b/></w:rPr>" if bold else ""
        return f'<w:r>{rpr}<w:t xml:space="preserve">{xesc(text)}</w:t></w:r>'

    def h(self, text: str, level: int = 1) -> None:
        style = "Title" if level == 0 else f"Heading{level}"
        self.parts.append(f'<w:p><w:pPr><w:pStyle w:val="{style}"/></w:pPr>{self._run(text)}</w:p>')
        self.pages[-1].append(text)

    def p(self, text: str, bold: bool = False) -> None:
        self.parts.append(f"<w:p>{self._run(text, bold)}</w:p>")
        self.pages[-1].append(text)

    def kv(self, key: str, value: str) -> None:
        self.parts.append(f"<w:p>{self._run(key + ' ', True)}{self._run(value)}</w:p>")
        self.pages[-1].append(f"{key} {value}")

    def bullet(self, text: str) -> None:
        self.parts.append(f'<w:p><w:pPr><w:pStyle w:val="ListBullet"/></w:pPr>{self._run(text)}</w:p>')
        self.pages[-1].append(text)

    def table(self, rows: list[list[str]]) -> None:
        grid = "".join('<w:gridCol w:w="2000"/>' for _ in rows[0])
        out = [f'<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid>{grid}</w:tblGrid>']
        for i, r in enumerate(rows):
            cells = "".join(f'<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p>{self._run(c, i == 0)}</w:p></w:tc>' for c in r)
            out.append(f"<w:tr>{cells}</w:tr>")
            self.pages[-1].append(" | ".join(r))
        out.append("</w:tbl>")
        self.parts.append("".join(out))

    def page_break(self) -> None:
        self.parts.append('<w:p><w:r><w:br w:type="page"/></w:r></w:p>')
        self.pages.append([])

    def build(self) -> bytes:
        doc = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
               f'<w:document {W_NS} xmlns:r="{OD_REL}"><w:body>' + "".join(self.parts)
               + '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>'
               "</w:body></w:document>")
        styles = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                  f'<w:styles {W_NS}>'
                  '<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/></w:rPr></w:rPrDefault></w:docDefaults>'
                  '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:pPr><w:spacing w:after="120"/></w:pPr></w:style>'
                  '<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:rPr><w:b/><w:sz w:val="40"/></w:rPr></w:style>'
                  '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="30"/></w:rPr></w:style>'
                  '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:rPr><w:b/><w:sz w:val="26"/></w:rPr></w:style>'
                  '<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:basedOn w:val="Normal"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:style>'
                  '<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style>'
                  '</w:styles>')
        ct = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
              '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
              '<Default Extension="xml" ContentType="application/xml"/>'
              '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
              '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
              '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
              '</Types>')
        return zip_bytes([
            ("[Content_Types].xml", ct),
            ("_rels/.rels", rels_xml([("rId1", OD_REL + "/officeDocument", "word/document.xml"),
                                      ("rId2", CORE_REL, "docProps/core.xml")])),
            ("word/document.xml", doc),
            ("word/_rels/document.xml.rels", rels_xml([("rId1", OD_REL + "/styles", "styles.xml")])),
            ("word/styles.xml", styles),
            ("docProps/core.xml", core_xml(self.title, self.author, self.created, self.modified)),
        ], self.modified)

    def save(self, rel: str, mtime: str | None = None) -> None:
        put(rel, self.build(), mtime or self.modified)
        REG[rel] = {"kind": "docx", "pages": [list(p) for p in self.pages]}


def col_letter(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


class Formula:
    def __init__(self, f: str, value):
        self.f, self.value = f, value


def xlsx_bytes(sheets: list[tuple[str, list[list]]], title: str, author: str, created: str, modified: str,
               shared: bool = False, widths: dict[str, list[int]] | None = None) -> bytes:
    """Sheets of rows (str / int / float / Formula / None); strings inline or shared."""
    sst: list[str] = []
    sst_index: dict[str, int] = {}

    def cell(ref: str, v) -> str:
        if v is None or v == "":
            return ""
        if isinstance(v, Formula):
            val = v.value
            if isinstance(val, str):
                return f'<c r="{ref}" t="str"><f>{xesc(v.f)}</f><v>{xesc(val)}</v></c>'
            return f'<c r="{ref}"><f>{xesc(v.f)}</f><v>{val:g}</v></c>'
        if isinstance(v, bool):
            return f'<c r="{ref}" t="b"><v>{int(v)}</v></c>'
        if isinstance(v, (int, float)):
            return f'<c r="{ref}"><v>{v:g}</v></c>' if isinstance(v, float) else f'<c r="{ref}"><v>{v}</v></c>'
        if shared:
            if v not in sst_index:
                sst_index[v] = len(sst)
                sst.append(v)
            return f'<c r="{ref}" t="s"><v>{sst_index[v]}</v></c>'
        return f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{xesc(v)}</t></is></c>'

    sheet_xml = []
    for name, rows in sheets:
        out = []
        for r, row in enumerate(rows, start=1):
            cells = "".join(cell(f"{col_letter(c)}{r}", v) for c, v in enumerate(row))
            out.append(f'<row r="{r}">{cells}</row>')
        cols = ""
        if widths and name in widths:
            cols = "<cols>" + "".join(f'<col min="{i+1}" max="{i+1}" width="{w}" customWidth="1"/>' for i, w in enumerate(widths[name])) + "</cols>"
        sheet_xml.append('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                         '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                         f'xmlns:r="{OD_REL}">{cols}<sheetData>' + "".join(out) + "</sheetData></worksheet>")
    wb = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
          '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
          f'xmlns:r="{OD_REL}"><sheets>'
          + "".join(f'<sheet name="{xesc(n)}" sheetId="{i+1}" r:id="rId{i+1}"/>' for i, (n, _) in enumerate(sheets))
          + "</sheets></workbook>")
    wb_rels = [(f"rId{i+1}", OD_REL + "/worksheet", f"worksheets/sheet{i+1}.xml") for i in range(len(sheets))]
    n = len(sheets)
    wb_rels.append((f"rId{n+1}", OD_REL + "/styles", "styles.xml"))
    if shared:
        wb_rels.append((f"rId{n+2}", OD_REL + "/sharedStrings", "sharedStrings.xml"))
    styles = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
              '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
              '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
              '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
              '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
              '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
              '</styleSheet>')
    ct = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
          '<Default Extension="xml" ContentType="application/xml"/>'
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
          + "".join(f'<Override PartName="/xl/worksheets/sheet{i+1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' for i in range(n))
          + '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
          + ('<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' if shared else "")
          + '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
          '</Types>')
    entries = [
        ("[Content_Types].xml", ct),
        ("_rels/.rels", rels_xml([("rId1", OD_REL + "/officeDocument", "xl/workbook.xml"), ("rId2", CORE_REL, "docProps/core.xml")])),
        ("xl/workbook.xml", wb),
        ("xl/_rels/workbook.xml.rels", rels_xml(wb_rels)),
        ("xl/styles.xml", styles),
    ]
    entries += [(f"xl/worksheets/sheet{i+1}.xml", x) for i, x in enumerate(sheet_xml)]
    if shared:
        sst_xml = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                   f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{len(sst)}" uniqueCount="{len(sst)}">'
                   + "".join(f'<si><t xml:space="preserve">{xesc(s)}</t></si>' for s in sst) + "</sst>")
        entries.append(("xl/sharedStrings.xml", sst_xml))
    entries.append(("docProps/core.xml", core_xml(title, author, created, modified)))
    return zip_bytes(entries, modified)


def save_xlsx(rel: str, sheets, title, author, created, modified, shared=False, widths=None) -> None:
    put(rel, xlsx_bytes(sheets, title, author, created, modified, shared, widths), modified)

    def show(v):
        if isinstance(v, Formula):
            v = v.value
        if isinstance(v, float):
            return f"{v:g}"
        return "" if v is None else str(v)
    REG[rel] = {"kind": "xlsx", "sheets": {name: [" | ".join(show(v) for v in row) for row in rows] for name, rows in sheets}}


P_NS = ('xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        f'xmlns:r="{OD_REL}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"')

THEME = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         '<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Plain">'
         '<a:themeElements><a:clrScheme name="Plain">'
         '<a:dk1><a:srgbClr val="000000"/></a:dk1><a:lt1><a:srgbClr val="FFFFFF"/></a:lt1>'
         '<a:dk2><a:srgbClr val="1F3A4D"/></a:dk2><a:lt2><a:srgbClr val="E7ECEF"/></a:lt2>'
         '<a:accent1><a:srgbClr val="137C8B"/></a:accent1><a:accent2><a:srgbClr val="D9822B"/></a:accent2>'
         '<a:accent3><a:srgbClr val="5B8C3A"/></a:accent3><a:accent4><a:srgbClr val="8E5EA2"/></a:accent4>'
         '<a:accent5><a:srgbClr val="3F6FB5"/></a:accent5><a:accent6><a:srgbClr val="B5473F"/></a:accent6>'
         '<a:hlink><a:srgbClr val="0563C1"/></a:hlink><a:folHlink><a:srgbClr val="954F72"/></a:folHlink>'
         '</a:clrScheme><a:fontScheme name="Plain"><a:majorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont>'
         '<a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>'
         '<a:fmtScheme name="Plain"><a:fillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:fillStyleLst>'
         '<a:lnStyleLst><a:ln w="6350"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="12700"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="19050"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln></a:lnStyleLst>'
         '<a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>'
         '<a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:bgFillStyleLst>'
         '</a:fmtScheme></a:themeElements></a:theme>')

EMPTY_TREE = ('<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>'
              '<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>')


def _sp(id_: int, name: str, ph: str, paras: list[str], x: int, y: int, cx: int, cy: int, size: int = 2400, bold: bool = False) -> str:
    ph_xml = '<p:ph type="title"/>' if ph == "title" else (f'<p:ph type="body" idx="1"/>' if ph == "body" else "")
    b = ' b="1"' if bold else ""
    ps = "".join(f'<a:p><a:r><a:rPr lang="en-AU" sz="{size}"{b} dirty="0"/><a:t>{xesc(t)}</a:t></a:r></a:p>' for t in paras) or "<a:p/>"
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="{id_}" name="{xesc(name)}"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr>{ph_xml}</p:nvPr></p:nvSpPr>'
            f'<p:spPr><a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>'
            f'<p:txBody><a:bodyPr wrap="square"/><a:lstStyle/>{ps}</p:txBody></p:sp>')


def pptx_bytes(slides: list[dict], title: str, author: str, created: str, modified: str) -> bytes:
    """slides: {"title": str, "body": [str], "notes": str|None}. Title on top, body below."""
    n = len(slides)
    entries: list[tuple[str, str]] = []
    ct_over = ['<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>',
               '<Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml"/>',
               '<Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml"/>',
               '<Override PartName="/ppt/theme/theme1.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/>',
               '<Override PartName="/ppt/theme/theme2.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/>',
               '<Override PartName="/ppt/notesMasters/notesMaster1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.notesMaster+xml"/>',
               '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>']
    pres_rels = [("rId1", OD_REL + "/slideMaster", "slideMasters/slideMaster1.xml"),
                 ("rId2", OD_REL + "/theme", "theme/theme1.xml"),
                 ("rId3", OD_REL + "/notesMaster", "notesMasters/notesMaster1.xml")]
    sld_ids = []
    for i, s in enumerate(slides, start=1):
        rid = f"rId{10 + i}"
        pres_rels.append((rid, OD_REL + "/slide", f"slides/slide{i}.xml"))
        sld_ids.append(f'<p:sldId id="{255 + i}" r:id="{rid}"/>')
        ct_over.append(f'<Override PartName="/ppt/slides/slide{i}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>')
        tree = EMPTY_TREE + _sp(2, "Title 1", "title", [s["title"]], 457200, 274638, 11277600, 1143000, 3600, True)
        if s.get("body"):
            tree += _sp(3, "Content 2", "body", s["body"], 457200, 1600200, 11277600, 4525963, 2200)
        entries.append((f"ppt/slides/slide{i}.xml",
                        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:sld {P_NS}><p:cSld><p:spTree>{tree}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>'))
        srels = [("rId1", OD_REL + "/slideLayout", "../slideLayouts/slideLayout1.xml")]
        if s.get("notes"):
            srels.append(("rId2", OD_REL + "/notesSlide", f"../notesSlides/notesSlide{i}.xml"))
            ct_over.append(f'<Override PartName="/ppt/notesSlides/notesSlide{i}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml"/>')
            ntree = EMPTY_TREE + _sp(2, "Notes Placeholder 2", "body", s["notes"].split("\n"), 685800, 4400550, 5486400, 3600450, 1200)
            entries.append((f"ppt/notesSlides/notesSlide{i}.xml",
                            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:notes {P_NS}><p:cSld><p:spTree>{ntree}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:notes>'))
            entries.append((f"ppt/notesSlides/_rels/notesSlide{i}.xml.rels",
                            rels_xml([("rId1", OD_REL + "/notesMaster", "../notesMasters/notesMaster1.xml"),
                                      ("rId2", OD_REL + "/slide", f"../slides/slide{i}.xml")])))
        entries.append((f"ppt/slides/_rels/slide{i}.xml.rels", rels_xml(srels)))
    clr_map = '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>'
    pres = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<p:presentation {P_NS}><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>'
            '<p:notesMasterIdLst><p:notesMasterId r:id="rId3"/></p:notesMasterIdLst>'
            f'<p:sldIdLst>{"".join(sld_ids)}</p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>')
    master = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              f'<p:sldMaster {P_NS}><p:cSld><p:spTree>{EMPTY_TREE}</p:spTree></p:cSld>{clr_map}'
              '<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>')
    layout = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              f'<p:sldLayout {P_NS} type="obj" preserve="1"><p:cSld name="Title and Content"><p:spTree>{EMPTY_TREE}</p:spTree></p:cSld>'
              '<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>')
    nmaster = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
               f'<p:notesMaster {P_NS}><p:cSld><p:spTree>{EMPTY_TREE}</p:spTree></p:cSld>{clr_map}</p:notesMaster>')
    ct = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
          '<Default Extension="xml" ContentType="application/xml"/>' + "".join(ct_over) + "</Types>")
    head = [
        ("[Content_Types].xml", ct),
        ("_rels/.rels", rels_xml([("rId1", OD_REL + "/officeDocument", "ppt/presentation.xml"), ("rId2", CORE_REL, "docProps/core.xml")])),
        ("ppt/presentation.xml", pres),
        ("ppt/_rels/presentation.xml.rels", rels_xml(pres_rels)),
        ("ppt/slideMasters/slideMaster1.xml", master),
        ("ppt/slideMasters/_rels/slideMaster1.xml.rels", rels_xml([("rId1", OD_REL + "/slideLayout", "../slideLayouts/slideLayout1.xml"), ("rId2", OD_REL + "/theme", "../theme/theme1.xml")])),
        ("ppt/slideLayouts/slideLayout1.xml", layout),
        ("ppt/slideLayouts/_rels/slideLayout1.xml.rels", rels_xml([("rId1", OD_REL + "/slideMaster", "../slideMasters/slideMaster1.xml")])),
        ("ppt/notesMasters/notesMaster1.xml", nmaster),
        ("ppt/notesMasters/_rels/notesMaster1.xml.rels", rels_xml([("rId1", OD_REL + "/theme", "../theme/theme2.xml")])),
        ("ppt/theme/theme1.xml", THEME),
        ("ppt/theme/theme2.xml", THEME),
    ]
    return zip_bytes(head + entries + [("docProps/core.xml", core_xml(title, author, created, modified))], modified)


def save_pptx(rel: str, slides, title, author, created, modified) -> None:
    put(rel, pptx_bytes(slides, title, author, created, modified), modified)
    REG[rel] = {"kind": "pptx", "slides": [[s["title"]] + s.get("body", []) + ([s["notes"]] if s.get("notes") else []) for s in slides]}


# ----------------------------------------------------------------------------------------
# E-mail, calendar, CSV
# ----------------------------------------------------------------------------------------

def addr(name: str, email: str) -> str:
    return formataddr((name, email), charset="utf-8")


def rfc_date(stamp: str) -> str:
    d = when(stamp)
    off = int(d.utcoffset().total_seconds() // 60)
    return d.strftime("%a, %d %b %Y %H:%M:%S ") + f"{'+' if off >= 0 else '-'}{abs(off)//60:02d}{abs(off)%60:02d}"


def subject_header(s: str) -> str:
    try:
        s.encode("ascii")
        return s
    except UnicodeEncodeError:
        return Header(s, "utf-8").encode()


def message_text(*, frm: str, to: list[str], subject: str, date: str, body: str, msgid: str,
                 cc: list[str] | None = None, reply_to_id: str | None = None, references: list[str] | None = None,
                 attachments: list[tuple[str, str]] | None = None, extra: list[str] | None = None) -> str:
    h = [f"From: {frm}", f"To: {', '.join(to)}"]
    if cc:
        h.append(f"Cc: {', '.join(cc)}")
    h += [f"Date: {rfc_date(date)}", f"Subject: {subject_header(subject)}", f"Message-ID: <{msgid}>"]
    if reply_to_id:
        h.append(f"In-Reply-To: <{reply_to_id}>")
        h.append("References: " + " ".join(f"<{r}>" for r in (references or [reply_to_id])))
    h += extra or []
    h.append("MIME-Version: 1.0")
    body = body.strip("\n") + "\n"
    if not attachments:
        h += ['Content-Type: text/plain; charset="utf-8"', "Content-Transfer-Encoding: 8bit"]
        text = "\n".join(h) + "\n\n" + body
    else:
        boundary = "=_part_" + msgid.split("@")[0].replace(".", "_")
        h.append(f'Content-Type: multipart/mixed; boundary="{boundary}"')
        parts = ["\n".join(h), "", "This is a multi-part message in MIME format.", "",
                 f"--{boundary}", 'Content-Type: text/plain; charset="utf-8"', "Content-Transfer-Encoding: 8bit", "", body]
        for name, content in attachments:
            b64 = base64.b64encode(content.encode("utf-8")).decode()
            lines = [b64[i:i + 76] for i in range(0, len(b64), 76)]
            parts += [f"--{boundary}", f'Content-Type: text/plain; charset="utf-8"; name="{name}"',
                      f'Content-Disposition: attachment; filename="{name}"', "Content-Transfer-Encoding: base64", ""] + lines + [""]
        parts.append(f"--{boundary}--")
        text = "\n".join(parts) + "\n"
    return text


def eml(rel: str, **kw) -> None:
    put(rel, message_text(**kw), kw["date"])
    REG[rel] = {"kind": "eml", "msgid": kw["msgid"], "subject": kw["subject"]}


def ics_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def ics_fold(line: str) -> str:
    out, cur = [], ""
    for ch in line:
        if len((cur + ch).encode("utf-8")) > 74:
            out.append(cur)
            cur = " " + ch
        else:
            cur += ch
    out.append(cur)
    return "\r\n".join(out)


def ics_calendar(rel: str, name: str, events: list[dict], mtime: str, desc: str = "") -> None:
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Brennan//Fruit Calendar 5.1//EN",
             "CALSCALE:GREGORIAN", f"X-WR-CALNAME:{ics_escape(name)}", "X-WR-TIMEZONE:Australia/Melbourne"]
    if desc:
        lines.append(f"X-WR-CALDESC:{ics_escape(desc)}")
    # Melbourne: AEDT (UTC+11) from the first Sunday in October, AEST (UTC+10) from the first Sunday in April
    lines += ["BEGIN:VTIMEZONE", "TZID:Australia/Melbourne",
              "BEGIN:STANDARD", "DTSTART:19700405T030000", "RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU",
              "TZOFFSETFROM:+1100", "TZOFFSETTO:+1000", "TZNAME:AEST", "END:STANDARD",
              "BEGIN:DAYLIGHT", "DTSTART:19701004T020000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU",
              "TZOFFSETFROM:+1000", "TZOFFSETTO:+1100", "TZNAME:AEDT", "END:DAYLIGHT", "END:VTIMEZONE"]
    for e in events:
        lines.append("BEGIN:VEVENT")
        lines.append(f"UID:{e['uid']}")
        lines.append(f"DTSTAMP:{e.get('stamp', '20250601T000000Z')}")
        if e.get("allday"):
            lines.append(f"DTSTART;VALUE=DATE:{e['start'].replace('-', '')}")
            lines.append(f"DTEND;VALUE=DATE:{e['end'].replace('-', '')}")
        else:
            s = e["start"].replace("-", "").replace(":", "").replace(" ", "T") + "00"
            t = e["end"].replace("-", "").replace(":", "").replace(" ", "T") + "00"
            lines.append(f"DTSTART;TZID=Australia/Melbourne:{s}")
            lines.append(f"DTEND;TZID=Australia/Melbourne:{t}")
        if e.get("rrule"):
            lines.append(f"RRULE:{e['rrule']}")
        for x in e.get("exdates", []):
            lines.append(f"EXDATE;TZID=Australia/Melbourne:{x.replace('-', '').replace(':', '').replace(' ', 'T')}00")
        lines.append(f"SUMMARY:{ics_escape(e['summary'])}")
        if e.get("location"):
            lines.append(f"LOCATION:{ics_escape(e['location'])}")
        if e.get("description"):
            lines.append(f"DESCRIPTION:{ics_escape(e['description'])}")
        if e.get("organizer"):
            n, m = e["organizer"]
            lines.append(f"ORGANIZER;CN={n}:mailto:{m}")
        for n, m in e.get("attendees", []):
            lines.append(f"ATTENDEE;CN={n};ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:{m}")
        if e.get("categories"):
            lines.append(f"CATEGORIES:{e['categories']}")
        lines.append("STATUS:CONFIRMED")
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    put(rel, "\r\n".join(ics_fold(l) for l in lines) + "\r\n", mtime)
    REG[rel] = {"kind": "ics", "events": {e["uid"]: e for e in events}}


def write_csv(rel: str, header: list[str], rows: list[list], mtime: str) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    put(rel, buf.getvalue(), mtime)


# ----------------------------------------------------------------------------------------
# Media: PNG screenshots (ffmpeg drawtext) and voice notes (espeak-ng)
# ----------------------------------------------------------------------------------------

def png_screenshot(rel: str, size: tuple[int, int], items: list[dict], mtime: str, boxes: list[tuple] = (),
                   bg: str = "white", colour: bool = False, tilt: float = 0.0) -> None:
    """items: {"text", "x", "y", "size", "bold", "italic", "color"}; boxes: (x, y, w, h, colour).
    bg/colour/tilt make "photos" (a coloured background, RGB, a slight rotation) instead of greyscale screenshots."""
    w, h = size
    with tempfile.TemporaryDirectory() as tmp:
        filters = []
        for (x, y, bw, bh, colour) in boxes:
            filters.append(f"drawbox=x={x}:y={y}:w={bw}:h={bh}:color={colour}:t=fill")
        for i, it in enumerate(items):
            tf = Path(tmp) / f"t{i}.txt"
            tf.write_text(it["text"], encoding="utf-8")
            font = FONT_BOLD if it.get("bold") else (FONT_ITALIC if it.get("italic") else FONT)
            filters.append(f"drawtext=fontfile={font}:textfile={tf}:expansion=none:fontsize={it.get('size', 24)}"
                           f":fontcolor={it.get('color', 'black')}:x={it['x']}:y={it['y']}")
        out = Path(tmp) / "out.png"
        if tilt:
            filters.append(f"rotate={tilt}*PI/180:fillcolor=0x2b2622:ow=iw:oh=ih")
        cmd = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"color=c={bg}:s={w}x{h}", "-frames:v", "1",
               "-vf", ",".join(filters), "-pix_fmt", "rgb24" if colour else "gray", "-bitexact", str(out)]
        subprocess.run(cmd, check=True)
        put(rel, out.read_bytes(), mtime)
    REG[rel] = {"kind": "png", "text": [it["text"] for it in items]}


def have(prog: str) -> bool:
    return shutil.which(prog) is not None


def voice_note(rel: str, sentences: list[str], mtime: str, voice: str = "en-gb+f3", speed: int = 150, gap: float = 0.7) -> bool:
    """Speaks each sentence with espeak-ng, resamples to 16 kHz mono and joins them with
    short pauses. Records each sentence's time range for the locators."""
    if not (have("espeak-ng") and have("ffmpeg")):
        WARNINGS.append(f"skipped {rel}: espeak-ng or ffmpeg missing")
        return False
    rate = 16000
    pcm = bytearray(b"\x00\x00" * int(rate * 0.6))
    segs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, s in enumerate(sentences):
            raw = Path(tmp) / f"s{i}.wav"
            subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), s], check=True)
            res = subprocess.run(["ffmpeg", "-v", "error", "-i", str(raw), "-ar", str(rate), "-ac", "1",
                                  "-f", "s16le", "-bitexact", "-"], check=True, capture_output=True).stdout
            start = len(pcm) / 2 / rate
            pcm += res
            end = len(pcm) / 2 / rate
            segs.append((start, end, s))
            pcm += b"\x00\x00" * int(rate * gap)
    pcm += b"\x00\x00" * int(rate * 0.5)
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(pcm))
    data = buf.getvalue()
    ext = rel.rsplit(".", 1)[1].lower()
    if ext != "wav":
        data = encode_audio(data, ext)
    put(rel, data, mtime)
    REG[rel] = {"kind": "audio", "segments": segs, "duration": len(pcm) / 2 / rate, "voice": voice}
    return True


def encode_audio(wav: bytes, ext: str) -> bytes:
    """WAV -> MP3 (libmp3lame, 48 kb/s) or M4A (native AAC, 64 kb/s), with bit-exact flags and no metadata."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in.wav", Path(tmp) / f"out.{ext}"
        src.write_bytes(wav)
        codec = ["-c:a", "libmp3lame", "-b:a", "48k", "-write_xing", "0", "-id3v2_version", "0"] if ext == "mp3" \
            else ["-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart"]
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(src), "-map_metadata", "-1", "-fflags", "+bitexact",
                        "-flags:a", "+bitexact", "-threads", "1"] + codec + [str(out)], check=True)
        return out.read_bytes()


# ----------------------------------------------------------------------------------------
# Additions for this profile: Thunderbird mbox folders, an MP4 screen recording
# ----------------------------------------------------------------------------------------

def mbox(rel: str, messages: list[dict], mtime: str) -> None:
    """Thunderbird-style mbox: each message starts with a 'From - <asctime>' separator line;
    body lines starting with 'From ' are quoted as '>From ' (mboxrd also quotes '>From ')."""
    out = []
    reg = {}
    for m in sorted(messages, key=lambda m: when(m["date"])):
        text = message_text(**m, extra=["X-Mozilla-Status: 0001", "X-Mozilla-Status2: 00000000"])
        lines = []
        for ln in text.split("\n"):
            if re.match(r"^>*From ", ln):
                ln = ">" + ln
            lines.append(ln)
        d = when(m["date"])
        sep = "From - " + d.strftime("%a %b ") + f"{d.day:2d}" + d.strftime(" %H:%M:%S %Y")
        out.append(sep + "\n" + "\n".join(lines).rstrip("\n") + "\n\n")
        if m["msgid"] in reg:
            raise SystemExit(f"duplicate Message-ID in {rel}: {m['msgid']}")
        reg[m["msgid"]] = {"subject": m["subject"], "text": text, "date": m["date"]}
    put(rel, "".join(out), mtime)
    REG[rel] = {"kind": "mbox", "messages": reg}


def speak(sentences: list[str], voice: str, speed: int, gap: float, lead: float = 0.6, rate: int = 16000):
    pcm = bytearray(b"\x00\x00" * int(rate * lead))
    segs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, s in enumerate(sentences):
            raw = Path(tmp) / f"s{i}.wav"
            subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), s], check=True)
            res = subprocess.run(["ffmpeg", "-v", "error", "-i", str(raw), "-ar", str(rate), "-ac", "1",
                                  "-f", "s16le", "-bitexact", "-"], check=True, capture_output=True).stdout
            start = len(pcm) / 2 / rate
            pcm += res
            segs.append((start, len(pcm) / 2 / rate, s))
            pcm += b"\x00\x00" * int(rate * gap)
    return pcm, segs


def screen_recording(rel: str, slides: list[tuple[list[str], str]], mtime: str, voice: str = "en-gb-x-rp+f2") -> bool:
    """A 'screen recording': one drawtext slide per narrated sentence (960x540, 4 fps MPEG-4 part 2
    video, AAC audio in an MP4). The slide texts and the sentences' time ranges are recorded."""
    if not (have("espeak-ng") and have("ffmpeg")):
        WARNINGS.append(f"skipped {rel}: espeak-ng or ffmpeg missing")
        return False
    rate = 16000
    pcm, segs = speak([s for _, s in slides], voice, 155, 1.2)
    pcm += b"\x00\x00" * int(rate * 0.8)
    total = len(pcm) / 2 / rate
    with tempfile.TemporaryDirectory() as tmp:
        wav_path = Path(tmp) / "a.wav"
        with wave.open(str(wav_path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(bytes(pcm))
        filters = ["drawbox=x=0:y=0:w=960:h=44:color=0x2d2d30:t=fill",
                   f"drawtext=fontfile={FONT}:text='Lightroom Classic - Export':fontsize=20:fontcolor=white:x=16:y=12"]
        k = 0
        for i, ((lines, _), (a, b, _)) in enumerate(zip(slides, segs)):
            lo = 0.0 if i == 0 else a - 0.6
            hi = total + 1 if i == len(slides) - 1 else segs[i + 1][0] - 0.6
            for j, ln in enumerate(lines):
                tf = Path(tmp) / f"t{k}.txt"
                k += 1
                tf.write_text(ln, encoding="utf-8")
                filters.append(f"drawtext=fontfile={FONT_BOLD if j == 0 else FONT}:textfile={tf}:expansion=none:"
                               f"fontsize={30 if j == 0 else 24}:fontcolor=0x111111:x=60:y={90 + 52 * j}:"
                               f"enable='between(t,{lo:.2f},{hi:.2f})'")
        out = Path(tmp) / "out.mp4"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"color=c=0xf3f3f3:s=960x540:r=4:d={total:.2f}",
                        "-i", str(wav_path), "-vf", ",".join(filters), "-c:v", "mpeg4", "-q:v", "6", "-pix_fmt", "yuv420p",
                        "-c:a", "aac", "-b:a", "48k", "-shortest", "-map_metadata", "-1", "-fflags", "+bitexact",
                        "-flags", "+bitexact", "-threads", "1", "-movflags", "+faststart", str(out)], check=True)
        put(rel, out.read_bytes(), mtime)
    REG[rel] = {"kind": "video", "segments": segs, "text": [ln for lines, _ in slides for ln in lines], "duration": total}
    return True


# ========================================================================================
# The persona: Tahlia Brennan, freelance photographer, Brunswick (Melbourne)
# ========================================================================================

TAHLIA = addr("Tahlia Brennan", "hello@tahliabrennan.com.au")
TAHLIA_P = addr("Tahlia Brennan", "tahlia.b@iinet.net.au")
DEV = addr("Dev Kapoor", "devkapoor.rn@gmail.com")
PRIYA = addr("Priya Raman", "priya.raman@harcourtrowe.com.au")
LINH = addr("Linh Nguyen", "linh.nguyen.92@outlook.com")
RHONDA = addr("Rhonda Pellegrini", "rhonda@pellegrinico.com.au")
SAM = addr("Sam Okafor", "sam@samokafor.photo")
CAITLIN = addr("Caitlin Brennan", "caitlin.brennan@bigpond.com")
DEB = addr("Deb Brennan", "debbrennan56@bigpond.com")
CLAY = addr("Clay Corner Studio", "studio@claycorner.com.au")
GRACE = addr("Grace Liu", "grace.liu.designs@gmail.com")
BIZ_NAME = "Tahlia Brennan Photography"
ABN = "53 614 208 771"
ADDRESS = "3/41 Hope Street, Brunswick VIC 3056"
BANK = "BSB 633-108   Account 1482 6604   Yarra Mutual"

STREETS = ["Albert St, Brunswick East", "Blyth St, Brunswick", "Victoria St, Brunswick", "Lygon St, Brunswick East",
           "Moreland Rd, Coburg", "Harding St, Coburg", "Reynard St, Coburg", "Station St, Fairfield",
           "Separation St, Northcote", "Mitchell St, Northcote", "Gold St, Brunswick", "Davies St, Brunswick",
           "Melville Rd, Brunswick West", "Dawson St, Brunswick", "Pearson St, Brunswick West", "Bell St, Coburg",
           "Gaffney St, Coburg North", "Rathmines St, Fairfield", "Westgarth St, Northcote", "Hope St, Brunswick"]

# Harcourt & Rowe property shoots by month: (shoot count, twilight add-ons)
HR_MONTHS = {"2024-12": (6, 0), "2025-01": (5, 0), "2025-02": (7, 1), "2025-03": (8, 2), "2025-04": (6, 0), "2025-05": (7, 1)}
HR_SHOOTS: list[dict] = []   # filled by plan_hr_shoots()
AU_HOLIDAYS = {day(x) for x in ["2024-12-25", "2024-12-26", "2025-01-01", "2025-01-27", "2025-03-10", "2025-04-18",
                                  "2025-04-21", "2025-04-25", "2025-06-09"]}
OTHER_JOBS = {day(x) for x in ["2025-02-12", "2025-03-06", "2025-03-14", "2025-03-27", "2025-04-03", "2025-06-05"]}
AWAY = {day("2025-04-17") + dt.timedelta(days=k) for k in range(8)}


def plan_hr_shoots() -> None:
    r = rng("hr-shoots")
    n = 0
    for ym, (count, twi) in HR_MONTHS.items():
        y, m = map(int, ym.split("-"))
        d = dt.date(y, m, 1)
        days = []
        while d.month == m:
            if d.weekday() < 5 and d not in AU_HOLIDAYS and d not in AWAY and d.day > 1 and d not in OTHER_JOBS:
                days.append(d)
            d += dt.timedelta(days=1)
        chosen = sorted(r.sample(days, count))
        twis = set(r.sample(range(count), twi))
        for i, d in enumerate(chosen):
            n += 1
            num = r.randint(2, 148)
            unit = r.choice(["", "", "", f"{r.randint(1, 12)}/"])
            HR_SHOOTS.append(dict(date=d, address=f"{unit}{num} {r.choice(STREETS)}", twilight=i in twis,
                                  time=r.choice(["09:30", "10:00", "10:30", "11:00", "13:00", "13:30"]), n=n))


def tb_invoice(no: str, date: str, to_lines: list[str], lines: list[tuple[str, float, float]], mtime: str,
               gst_inclusive: bool = False, notes: list[str] = (), due_days: int = 14, ref: str = "") -> float:
    d = day(date)
    pdf = PDF(f"Tax invoice {no}", "Tahlia Brennan", mtime, "Studio Ninja invoicing 3.8")
    pdf.footer = f"{BIZ_NAME}  ABN {ABN}"
    pdf.line(BIZ_NAME.upper(), 16, True)
    pdf.line(f"{ADDRESS}   0412 558 903   hello@tahliabrennan.com.au   ABN {ABN}", 8.5)
    pdf.space(10)
    pdf.line("TAX INVOICE", 14, True)
    pdf.row(["Invoice no:", no, "Date:", au_date(d)], [56, 130, 380, 420])
    pdf.row(["Due:", au_date(d + dt.timedelta(days=due_days)), "Terms:", f"{due_days} days"], [56, 130, 380, 420])
    pdf.row(["Bill to:", to_lines[0]], [56, 130])
    for t in to_lines[1:]:
        pdf.row(["", t], [56, 130])
    if ref:
        pdf.row(["Reference:", ref], [56, 130])
    pdf.space(10)
    xs = [56, 350, 400, 480]
    rows, sub = [], 0.0
    for desc, qty, price in lines:
        q = f"{qty:g}"
        rows.append([desc, q, f"{price:,.2f}", f"{qty * price:,.2f}"])
        sub += qty * price
    pdf.table(["Description", "Qty", "Unit", "Amount"], rows, xs, right={1, 2, 3})
    if gst_inclusive:
        total = sub
        gst = round(total / 11 + 1e-9, 2)
        pdf.row(["", "", "Total (incl. GST)", f"A{aud(total)}"], [56, 350, 380, 480], bold=True, right={3})
        pdf.row(["", "", "GST included", aud(gst)], [56, 350, 380, 480], right={3})
    else:
        gst = round(sub * 0.10 + 1e-9, 2)
        total = round(sub + gst, 2)
        pdf.row(["", "", "Subtotal", aud(sub)], [56, 350, 380, 480], right={3})
        pdf.row(["", "", "GST 10%", aud(gst)], [56, 350, 380, 480], right={3})
        pdf.row(["", "", "TOTAL DUE", f"A{aud(total)}"], [56, 350, 380, 480], bold=True, right={3})
    pdf.space(10)
    for n in notes:
        pdf.para(n)
    pdf.para(f"Please pay by EFT to {BANK}, quoting {no}. Thank you!", 9)
    pdf.save(f"Business/Invoices/{no}.pdf", mtime)
    FACTS[f"inv_{no}"] = total
    FACTS[f"inv_{no}_date"] = d
    return total


def hr_invoice(no: str, date: str, ym: str, mtime: str) -> None:
    shoots = [s for s in HR_SHOOTS if s["date"].strftime("%Y-%m") == ym]
    lines = []
    for s in shoots:
        lines.append((f"{s['date'].strftime('%d/%m')} {s['address']} - standard shoot", 1, 220.00))
        if s["twilight"]:
            lines.append((f"{s['date'].strftime('%d/%m')} {s['address']} - twilight add-on", 1, 90.00))
    month = dt.date(int(ym[:4]), int(ym[5:]), 1).strftime("%B %Y")
    tb_invoice(no, date, ["Harcourt & Rowe Real Estate", "Attn: Priya Raman, Marketing", "212 Sydney Road, Brunswick VIC 3056"],
               lines, mtime, ref=f"Property photography - {month}",
               notes=[f"{len(shoots)} property shoots in {month}, up to 25 edited images each, delivered via Dropbox within one business day."])
    FACTS[f"hr_{ym}"] = (no, FACTS[f"inv_{no}"], len(shoots), sum(s["twilight"] for s in shoots))


def build_invoices() -> None:
    plan_hr_shoots()
    tb_invoice("INV-2024-041", "2024-11-12", ["Linh Nguyen & Ben Walsh", "8 Dight St, Collingwood VIC 3066"],
               [("Wedding photography - deposit to secure 15 March 2025", 1, 1200.00)], "2024-11-12 16:20",
               gst_inclusive=True, due_days=7, ref="Nguyen-Walsh wedding",
               notes=["Deposit is non-refundable once the date is secured (see contract clause 4)."])
    hr_invoice("INV-2025-001", "2025-01-06", "2024-12", "2025-01-06 09:40")
    hr_invoice("INV-2025-002", "2025-02-03", "2025-01", "2025-02-03 09:25")
    tb_invoice("INV-2025-003", "2025-02-14", ["Hartley Legal Pty Ltd", "Attn: Fiona Mercer, Office Manager", "Level 9, 530 Collins Street, Melbourne VIC 3000"],
               [("Corporate headshots - half day on location (12/02/2025, 18 staff)", 1, 1650.00),
                ("Retouched final images", 36, 25.00)], "2025-02-14 15:05", ref="Staff headshots February 2025",
               notes=["Two looks per person (grey backdrop and window light). Gallery: shootbook gallery, password sent separately."])
    tb_invoice("INV-2025-004", "2025-02-24", ["Linh Nguyen & Ben Walsh", "8 Dight St, Collingwood VIC 3066"],
               [("Wedding photography - Collection B+ (9 hrs, second shooter 6 hrs)", 1, 4850.00),
                ("Less deposit paid 14/11/2024 (INV-2024-041)", 1, -1200.00)], "2025-02-24 10:12",
               gst_inclusive=True, due_days=7, ref="Nguyen-Walsh wedding, 15/03/2025",
               notes=["Balance due 14 days before the wedding, i.e. by Saturday 1 March 2025."])
    hr_invoice("INV-2025-005", "2025-03-03", "2025-02", "2025-03-03 09:31")
    tb_invoice("INV-2025-006", "2025-03-04", ["Brunswick Business Association", "PO Box 2170, Brunswick VIC 3056"],
               [("Event photography - Sydney Road Street Party, 02/03/2025 (4 hrs)", 1, 750.00)], "2025-03-04 14:48",
               ref="Street party 2025")
    tb_invoice("INV-2025-007", "2025-03-31", ["Little Ochre Cafe", "Attn: Marco Ferrante", "311 Lygon Street, Brunswick East VIC 3057"],
               [("Menu photography - autumn menu (27/03/2025, 14 dishes + drinks)", 1, 880.00),
                ("Styling props hire", 1, 100.00)], "2025-03-31 17:02", ref="Autumn menu shoot")
    hr_invoice("INV-2025-008", "2025-04-01", "2025-03", "2025-04-01 09:18")
    hr_invoice("INV-2025-009", "2025-05-01", "2025-04", "2025-05-01 09:50")
    hr_invoice("INV-2025-010", "2025-06-02", "2025-05", "2025-06-02 09:22")
    tb_invoice("INV-2025-011", "2025-06-10", ["Saltbush Yoga", "Attn: Mel Dunstan", "5 Munro St, Coburg VIC 3058"],
               [("Brand photography - studio and class shoot (05/06/2025)", 1, 1200.00)], "2025-06-10 12:44",
               ref="Brand refresh")


# ----------------------------------------------------------------------------------------
# Quotes (draft, draft, final + a Desktop copy), contract, price lists
# ----------------------------------------------------------------------------------------

def nw_quote(version: str, created: str, modified: str) -> Docx:
    hours, second, extras, price = {
        "v1": (8, None, [], 4200),
        "v2": (8, "Second shooter (Sam Okafor) for 6 hours", [], 4650),
        "FINAL": (9, "Second shooter (Sam Okafor) for 6 hours", ["Sparkler exit coverage (coverage extended to 9:30 pm)"], 4850),
    }[version]
    doc = Docx(f"Quote - Nguyen-Walsh wedding {version}", "Tahlia Brennan", created, modified)
    doc.h(f"Wedding photography quote{'' if version == 'FINAL' else ' (draft ' + version + ')'}", 0)
    doc.kv("Couple:", "Linh Nguyen & Ben Walsh")
    doc.kv("Date:", "Saturday 15 March 2025")
    doc.kv("Venue:", "Coldstream Ridge Winery, Maroondah Hwy, Coldstream VIC 3770")
    doc.kv("Prepared:", au_date(day(modified[:10])))
    doc.h("What's included", 1)
    doc.bullet(f"{hours} hours of coverage from bridal prep to {'the sparkler exit' if version == 'FINAL' else 'the first dance'}")
    if second:
        doc.bullet(second)
    for e in extras:
        doc.bullet(e)
    doc.bullet("Online gallery with full-resolution downloads, live for 12 months")
    doc.bullet("Sneak peek of 30 images within 72 hours")
    doc.bullet("Full gallery delivered within 6 weeks")
    doc.h("Investment", 1)
    doc.table([["Item", "Amount"], [f"Collection B{'+' if version != 'v1' else ''} ({hours} hrs)", aud(price)],
               ["Deposit to secure the date", "$1,200.00"], ["Balance (due 14 days before)", aud(price - 1200)]])
    doc.p(f"Total {aud(price)} including GST. Travel to the Yarra Valley is included.")
    if version == "v1":
        doc.p("Note to self: ask Linh whether they want a second shooter - big family, 130-ish guests.")
    if version == "v2":
        doc.p("Optional: a 30-page linen album can be added later for $650.")
    if version == "FINAL":
        doc.p("Accepted by Linh by e-mail on 11/11/2024. Contract signed 14/11/2024.")
    return doc


def build_quotes_and_prices() -> None:
    nw_quote("v1", "2024-10-28 20:10", "2024-10-28 21:02").save("Business/Quotes/Quote - Nguyen-Walsh wedding v1.docx")
    q2 = nw_quote("v2", "2024-10-28 20:10", "2024-11-04 19:45")
    q2.save("Business/Quotes/Quote - Nguyen-Walsh wedding v2.docx")
    q2.save("Desktop/Quote - Nguyen-Walsh wedding v2 (copy).docx", "2024-11-05 08:12")
    nw_quote("FINAL", "2024-10-28 20:10", "2024-11-11 21:30").save("Business/Quotes/Quote - Nguyen-Walsh wedding FINAL.docx")

    # contract template (docx) and the signed contract (pdf)
    doc = Docx("Wedding photography agreement - template 2025", "Tahlia Brennan", "2024-07-02 10:00", "2025-01-13 11:20")
    doc.h("Wedding Photography Agreement", 0)
    clauses = [
        ("1. Parties", "This agreement is between Tahlia Brennan Photography (ABN 53 614 208 771) and the Client named in the booking form."),
        ("2. Coverage", "Coverage starts and ends at the times in the booking form. Extra time is charged at $350 per hour, in half-hour blocks."),
        ("3. Payment", "A deposit of $1,200 secures the date. The balance is due 14 days before the wedding."),
        ("4. Cancellation", "The deposit is non-refundable. Cancellations within 60 days of the date forfeit 50% of the balance."),
        ("5. Postponement", "One change of date is free if made more than 90 days before the wedding, subject to availability."),
        ("6. Delivery", "A sneak peek within 72 hours; the full edited gallery within 6 weeks of the wedding."),
        ("7. Meals", "For coverage over 6 hours the Client provides a hot meal for each photographer."),
        ("8. Copyright", "The photographer keeps copyright and grants the Client a personal-use licence."),
    ]
    for h, t in clauses:
        doc.h(h, 2)
        doc.p(t)
    doc.save("Business/Contracts/Wedding agreement template 2025.docx")

    pdf = PDF("Wedding agreement - Nguyen-Walsh (signed)", "Tahlia Brennan", "2024-11-14 18:40", "Adobe Acrobat Sign")
    pdf.line("WEDDING PHOTOGRAPHY AGREEMENT", 14, True)
    for k, v in [("Client", "Linh Nguyen & Ben Walsh"), ("Wedding date", "Saturday 15 March 2025"),
                 ("Venue", "Coldstream Ridge Winery, Coldstream"), ("Coverage", "12:15 pm - 9:30 pm (9 hours)"),
                 ("Second shooter", "Yes, 2:00 pm - 8:00 pm"), ("Package", "Collection B+  $4,850.00 incl. GST"),
                 ("Deposit", "$1,200.00 paid 14/11/2024")]:
        pdf.row([k + ":", v], [56, 170])
    pdf.space(8)
    for h, t in clauses:
        pdf.line(h, 10.5, True)
        pdf.para(t)
    pdf.space(8)
    pdf.para("Signed electronically by Linh Nguyen (14/11/2024 18:31 AEDT), Ben Walsh (14/11/2024 18:36 AEDT) and "
             "Tahlia Brennan (14/11/2024 18:39 AEDT).", 9)
    pdf.save("Business/Contracts/Agreement - Nguyen-Walsh (signed).pdf", "2024-11-14 18:41")

    def price_list(year: int, p: dict, mtime: str) -> None:
        pdf = PDF(f"Price list {year}", "Tahlia Brennan", mtime)
        pdf.footer = f"{BIZ_NAME} - prices include GST unless marked +GST"
        pdf.line(f"{BIZ_NAME} - Investment {year}", 16, True)
        pdf.para("Weddings, portraits, brands and property across Melbourne's north and the Yarra Valley.")
        pdf.heading("Weddings", 12)
        pdf.table(["Collection", "Coverage", "Price"], [
            ["A", "6 hours, online gallery", aud(p["A"])],
            ["B", "8 hours, online gallery, sneak peek", aud(p["B"])],
            ["C", "10 hours, second shooter, 30-page album", aud(p["C"])],
            ["Second shooter", "per hour", aud(p["second"])],
        ], [56, 190, 470], right={2})
        pdf.heading("Portraits & families", 12)
        pdf.table(["Session", "Details", "Price"], [
            ["Mini session", "20 minutes, 10 edited images (autumn & spring)", aud(p["mini"])],
            ["Family session", "60 minutes, full gallery", aud(p["family"])],
        ], [56, 190, 470], right={2})
        pdf.heading("Commercial", 12)
        pdf.table(["Service", "Details", "Price"], [
            ["Corporate headshots", "half day on location", aud(p["half"]) + " +GST"],
            ["Headshot retouching", "per final image", aud(p["retouch"]) + " +GST"],
            ["Property shoot", "up to 25 images, next-day delivery", aud(p["prop"]) + " +GST"],
            ["Twilight add-on", "per property", aud(p["twi"]) + " +GST"],
            ["Menu / product", "half day", aud(p["menu"]) + " +GST"],
        ], [56, 190, 470], right={2})
        pdf.para("Travel beyond 50 km from Brunswick is charged at $0.95 per km. Prices valid for bookings made in "
                 f"the calendar year {year}.", 9)
        pdf.save(f"Business/Price list {year}.pdf", mtime)

    price_list(2024, dict(A=3200, B=4000, C=5100, second=75, mini=250, family=480, half=1500, retouch=22, prop=200, twi=80, menu=800),
               "2024-01-08 14:00")
    price_list(2025, dict(A=3400, B=4200, C=5400, second=80, mini=290, family=520, half=1650, retouch=25, prop=220, twi=90, menu=880),
               "2025-01-13 11:45")


# ----------------------------------------------------------------------------------------
# Money: business and personal bank exports, BAS workings, budget, gear register
# ----------------------------------------------------------------------------------------

BIZ_TX: list[dict] = []   # date, desc, amount (+credit / -debit), gst (bool), bas (label) ...
PERS_TX: list[dict] = []


def tx(lst, date: str, desc: str, amount: float, gst: bool = False, kind: str = "") -> None:
    lst.append(dict(date=day(date), desc=desc, amount=round(amount, 2), gst=gst, kind=kind))


def business_transactions() -> None:
    r = rng("biz-tx")
    inc = [("2025-01-20", "INV-2025-001", "HARCOURT ROWE RE PTY LTD INV-2025-001"),
           ("2025-02-17", "INV-2025-002", "HARCOURT ROWE RE PTY LTD INV-2025-002"),
           ("2025-02-26", "INV-2025-003", "HARTLEY LEGAL PTY LTD INV-2025-003"),
           ("2025-02-28", "INV-2025-004", "L NGUYEN B WALSH WEDDING BALANCE"),
           ("2025-03-17", "INV-2025-005", "HARCOURT ROWE RE PTY LTD INV-2025-005"),
           ("2025-03-25", "INV-2025-006", "BRUNSWICK BUSINESS ASSOC INV-2025-006"),
           ("2025-04-09", "INV-2025-007", "LITTLE OCHRE CAFE INV007"),
           ("2025-04-15", "INV-2025-008", "HARCOURT ROWE RE PTY LTD INV-2025-008"),
           ("2025-05-16", "INV-2025-009", "HARCOURT ROWE RE PTY LTD INV-2025-009")]
    for d, inv, desc in inc:
        tx(BIZ_TX, d, desc, FACTS[f"inv_{inv}"], True, "income")
    tx(BIZ_TX, "2025-04-11", "G LIU M BELLINI WEDDING FINAL PAYMENT", 3000.00, True, "income")
    tx(BIZ_TX, "2025-05-12", "PIXIESET PAYOUT PO-88127 AUTUMN MINIS", 3941.80, True, "income")
    for m in range(1, 6):
        tx(BIZ_TX, f"2025-{m:02d}-01", "BACKBLAZE B2 SAN MATEO USD 6.31", -round(9.6 + 0.05 * m, 2), False, "subs")
        tx(BIZ_TX, f"2025-{m:02d}-03", "DROPBOX PLUS DUBLIN", -19.99, True, "subs")
        tx(BIZ_TX, f"2025-{m:02d}-09", "ADOBE CREATIVE CLOUD SYDNEY", -87.99, True, "subs")
        tx(BIZ_TX, f"2025-{m:02d}-15", "PIXIESET.COM VANCOUVER", -41.23, False, "subs")
        tx(BIZ_TX, f"2025-{m:02d}-22", "TELSTRA MOBILE BUSINESS", -65.00, True, "subs")
    one_off = [("2025-01-16", "CAMERA CLINIC RICHMOND", -289.00, True), ("2025-02-05", "PROLAB COLLINGWOOD", -64.50, True),
               ("2025-03-14", "LENSPOINT MELBOURNE CBD", -170.95, True), ("2025-03-17", "S OKAFOR 2ND SHOOTER NGUYEN-WALSH", -720.00, False),
               ("2025-03-20", "PROLAB COLLINGWOOD", -112.00, True), ("2025-04-14", "PROLAB COLLINGWOOD", -38.00, True),
               ("2025-04-28", "S OKAFOR 2ND SHOOTER LIU-BELLINI", -480.00, False), ("2025-05-22", "PELLEGRINI & CO ACCOUNTANTS", -302.50, True),
               ("2025-05-20", "PROLAB COLLINGWOOD", -156.00, True), ("2025-02-24", "OFFICEWORKS COBURG", -46.80, True),
               ("2025-04-26", "BP DAYLESFORD", -71.40, True), ("2025-03-15", "AMPOL LILYDALE", -68.15, True)]
    for d, desc, a, g in one_off:
        tx(BIZ_TX, d, desc, a, g, "expense")
    # fuel now and then
    for d in ["2025-01-10", "2025-01-29", "2025-02-19", "2025-03-06", "2025-03-28", "2025-04-07", "2025-05-02", "2025-05-26"]:
        tx(BIZ_TX, d, r.choice(["AMPOL BRUNSWICK WEST", "7-ELEVEN COBURG", "BP BRUNSWICK"]), -round(r.uniform(58, 84), 2), True, "fuel")
    # coffee from the same cafe on most shoot mornings
    shoot_days = sorted({s["date"] for s in HR_SHOOTS if s["date"].year == 2025 and s["date"].month <= 5} |
                        {day("2025-02-12"), day("2025-03-06"), day("2025-03-27"), day("2025-06-05")})
    for d in shoot_days:
        if d.month <= 5 and r.random() < 0.75:
            tx(BIZ_TX, d.isoformat(), "TINKER & LOAF BRUNSWICK", -r.choice([5.50, 5.50, 6.20, 11.00]), True, "coffee")
    # drawings to the personal account every second Thursday
    d = day("2025-01-09")
    while d <= day("2025-05-31"):
        tx(BIZ_TX, d.isoformat(), "TRANSFER TO EVERYDAY SAVER - DRAWINGS", -2000.00, False, "drawings")
        d += dt.timedelta(days=14)
    # the BAS payment (amount filled in after the BAS workings are computed)
    BIZ_TX.sort(key=lambda t: (t["date"], t["desc"]))


def bas_workbook(rel: str, quarter: str, start: str, end: str, lines: list[dict], mtime: str, notes: list[str]) -> dict:
    a, b = day(start), day(end)
    inc = [t for t in lines if t["amount"] > 0 and a <= t["date"] <= b]
    exp = [t for t in lines if t["amount"] < 0 and a <= t["date"] <= b and t["kind"] != "drawings"]
    rows_i = [["Date", "Payer", "Amount incl. GST", "GST"]]
    g1 = sum(t["amount"] for t in inc)
    a1 = 0.0
    for t in inc:
        g = round(t["amount"] / 11 + 1e-9, 2)
        a1 += g
        rows_i.append([au_date(t["date"]), t["desc"], t["amount"], g])
    rows_i.append(["", "TOTAL SALES (G1)", Formula(f"SUM(C2:C{len(rows_i)})", round(g1, 2)), Formula(f"SUM(D2:D{len(rows_i)})", round(a1, 2))])
    rows_e = [["Date", "Supplier", "Amount", "GST credit"]]
    b1 = 0.0
    for t in exp:
        g = round(-t["amount"] / 11 + 1e-9, 2) if t["gst"] else 0.0
        b1 += g
        rows_e.append([au_date(t["date"]), t["desc"], -t["amount"], g])
    rows_e.append(["", "TOTAL GST ON PURCHASES (1B)", Formula(f"SUM(C2:C{len(rows_e)})", round(sum(-t['amount'] for t in exp), 2)),
                   Formula(f"SUM(D2:D{len(rows_e)})", round(b1, 2))])
    a1, b1, g1 = round(a1, 2), round(b1, 2), round(g1, 2)
    net = round(a1 - b1, 2)
    summary = [["BAS " + quarter, ""], ["Period", f"{au_date(a)} - {au_date(b)}"], ["Accounting basis", "Cash"],
               ["G1 Total sales (incl. GST)", g1], ["1A GST on sales", a1], ["1B GST on purchases", b1],
               ["Net GST payable (1A - 1B)", Formula("B5-B6", net)], ["", ""]] + [[n, ""] for n in notes]
    save_xlsx(rel, [("Summary", summary), ("Income", rows_i), ("Expenses", rows_e)], f"BAS workings {quarter}",
              "Tahlia Brennan", mtime, mtime, shared=True, widths={"Summary": [34, 26], "Income": [12, 44, 16, 10], "Expenses": [12, 40, 12, 12]})
    return dict(g1=g1, a1=a1, b1=b1, net=net)


def build_money() -> None:
    business_transactions()
    # last quarter (Oct-Dec 2024), its own lines
    q2 = []
    for d, desc, amt, g, k in [("2024-10-14", "HARCOURT ROWE RE PTY LTD INV-2024-035", 1210.00, True, "income"),
                               ("2024-10-21", "J PATEL A MORRIS WEDDING BALANCE", 2800.00, True, "income"),
                               ("2024-11-14", "HARCOURT ROWE RE PTY LTD INV-2024-038", 1694.00, True, "income"),
                               ("2024-11-14", "L NGUYEN WEDDING DEPOSIT", 1200.00, True, "income"),
                               ("2024-11-29", "PIXIESET PAYOUT PO-80412 SPRING MINIS", 3350.40, True, "income"),
                               ("2024-12-16", "HARCOURT ROWE RE PTY LTD INV-2024-040", 1452.00, True, "income"),
                               ("2024-10-09", "ADOBE CREATIVE CLOUD SYDNEY", -82.49, True, "subs"),
                               ("2024-11-09", "ADOBE CREATIVE CLOUD SYDNEY", -82.49, True, "subs"),
                               ("2024-12-09", "ADOBE CREATIVE CLOUD SYDNEY", -82.49, True, "subs"),
                               ("2024-10-22", "TELSTRA MOBILE BUSINESS", -65.00, True, "subs"),
                               ("2024-11-22", "TELSTRA MOBILE BUSINESS", -65.00, True, "subs"),
                               ("2024-12-22", "TELSTRA MOBILE BUSINESS", -65.00, True, "subs"),
                               ("2024-11-02", "GODOX AU - AD200PRO", -539.00, True, "expense"),
                               ("2024-12-03", "PROLAB COLLINGWOOD", -214.00, True, "expense"),
                               ("2024-10-18", "S OKAFOR 2ND SHOOTER PATEL-MORRIS", -480.00, False, "expense")]:
        tx(q2, d, desc, amt, g, k)
    FACTS["bas_q2"] = bas_workbook("Business/BAS/BAS workings Q2 FY25 (Oct-Dec 2024).xlsx", "Q2 FY25 (Oct-Dec 2024)",
                                   "2024-10-01", "2024-12-31", q2, "2025-01-24 15:10",
                                   ["Lodged by Rhonda (Pellegrini & Co) 20/02/2025, paid 24/02/2025."])
    FACTS["bas_q3"] = bas_workbook("Business/BAS/BAS workings Q3 FY25 (Jan-Mar 2025).xlsx", "Q3 FY25 (Jan-Mar 2025)",
                                   "2025-01-01", "2025-03-31", BIZ_TX, "2025-04-22 16:35",
                                   ["Send to Rhonda - she lodges through the agent portal (due 26 May).",
                                    "Sam's second-shooter fee has no GST (he isn't registered)."])
    net = FACTS["bas_q3"]["net"]
    tx(BIZ_TX, "2025-05-23", "ATO BPAY 551004 BAS Q3 FY25", -net, False, "bas")
    tx(BIZ_TX, "2025-02-24", "ATO BPAY 551004 BAS Q2 FY25", -FACTS["bas_q2"]["net"], False, "bas")
    BIZ_TX.sort(key=lambda t: (t["date"], t["desc"]))

    bal = 14320.55
    rows_by_month: dict[int, list] = {}
    for t in BIZ_TX:
        bal = round(bal + t["amount"], 2)
        if bal < 0:
            raise SystemExit(f"business balance negative on {t['date']}")
        rows_by_month.setdefault(t["date"].month, []).append(
            [au_date(t["date"]), t["desc"], f"{-t['amount']:.2f}" if t["amount"] < 0 else "", f"{t['amount']:.2f}" if t["amount"] > 0 else "", f"{bal:.2f}"])
    for m, rows in rows_by_month.items():
        last = dt.date(2025, m + 1, 1) - dt.timedelta(days=1)
        write_csv(f"Money/Bank/YarraMutual_BusinessEveryday_2025-{m:02d}.csv", ["Date", "Description", "Debit", "Credit", "Balance"],
                  rows, f"2025-{m + 1:02d}-0{2 + m % 3} 20:{10 + m:02d}")
    FACTS["biz_rows"] = rows_by_month

    # personal account, March to May
    r = rng("personal")
    d = day("2025-03-01")
    while d <= day("2025-05-31"):
        wd = d.weekday()
        if wd == 3 and (d - day("2025-01-09")).days % 14 == 0:
            tx(PERS_TX, d.isoformat(), "TRANSFER FROM BUSINESS EVERYDAY - DRAWINGS", 2000.00)
        if wd == 4 and (d - day("2025-03-07")).days % 14 == 0:
            tx(PERS_TX, d.isoformat(), "BARKLY PROPERTY GROUP RENT 3/41 HOPE ST", -1150.00)
        if wd == 6 and d not in AWAY:
            tx(PERS_TX, d.isoformat(), "ALDI STORES BRUNSWICK", -round(r.uniform(96, 142), 2))
        if wd == 2 and r.random() < 0.6 and d not in AWAY:
            tx(PERS_TX, d.isoformat(), "COLES BRUNSWICK EAST", -round(r.uniform(18, 46), 2))
        if d.day == 6:
            tx(PERS_TX, d.isoformat(), "NETFLIX.COM", -18.99)
        if d.day == 18:
            tx(PERS_TX, d.isoformat(), "PETSTOCK BRUNSWICK", -89.95)
        d += dt.timedelta(days=1)
    for dd, desc, a in [("2025-03-01", "TRANSFER FROM D KAPOOR - HOUSE", 1400.00), ("2025-04-01", "TRANSFER FROM D KAPOOR - HOUSE", 1400.00),
                        ("2025-05-01", "TRANSFER FROM D KAPOOR - HOUSE", 1400.00),
                        ("2025-03-03", "SPIRIT OF TASMANIA GEELONG", -1146.00), ("2025-03-11", "BRUNSWICK VET CLINIC", -186.50),
                        ("2025-03-25", "BRUNSWICK VET CLINIC", -68.00),
                        ("2025-04-14", "CLAY CORNER STUDIO NORTHCOTE", -420.00), ("2025-05-02", "KESTREL ENERGY BPAY", -412.18),
                        ("2025-05-08", "BRUNSWICK DENTAL GROUP", -245.00), ("2025-05-08", "MEDIBANK HICAPS REBATE", 148.50),
                        ("2025-04-22", "BINALONG BAY SHACKS", -180.00), ("2025-04-03", "MIKES AUTO CARE COBURG", -398.00),
                        ("2025-03-30", "AMPOL KYNETON", -61.20), ("2025-04-27", "AMPOL KYNETON", -58.75), ("2025-05-25", "AMPOL KYNETON", -63.05)]:
        tx(PERS_TX, dd, desc, a)
    PERS_TX.sort(key=lambda t: (t["date"], t["desc"]))
    bal = 3208.40
    by_m: dict[int, list] = {}
    for t in PERS_TX:
        bal = round(bal + t["amount"], 2)
        by_m.setdefault(t["date"].month, []).append(
            [au_date(t["date"]), t["desc"], f"{-t['amount']:.2f}" if t["amount"] < 0 else "", f"{t['amount']:.2f}" if t["amount"] > 0 else "", f"{bal:.2f}"])
    if bal < 0:
        raise SystemExit("personal balance negative")
    for m, rows in by_m.items():
        write_csv(f"Money/Bank/YarraMutual_EverydaySaver_2025-{m:02d}.csv", ["Date", "Description", "Debit", "Credit", "Balance"],
                  rows, f"2025-{m + 1:02d}-0{3 + m % 3} 21:0{m}")

    # household budget
    save_xlsx("Money/Household budget 2025.xlsx", [
        ("Monthly", [["Item", "Monthly", "Who pays", "Notes"],
                     ["Rent ($575/wk)", Formula("575*52/12", round(575 * 52 / 12, 2)), "Joint", "Goes up 1 July - see notice"],
                     ["Groceries", 720, "Joint", "Aldi Sunday + top-ups"],
                     ["Electricity (Kestrel)", 140, "Joint", "Quarterly bill, smoothed"],
                     ["Internet (Aussie Broadband)", 89, "Tahlia", ""],
                     ["Biscuit (food, vet, insurance)", 165, "Joint", ""],
                     ["Car (fuel, rego, insurance, service)", 310, "Tahlia", "Rego due July"],
                     ["Pottery term fee", 140, "Tahlia", "$420 per term"],
                     ["Streaming", 30, "Dev", ""],
                     ["TOTAL", Formula("SUM(B2:B9)", round(575 * 52 / 12 + 720 + 140 + 89 + 165 + 310 + 140 + 30, 2)), "", ""]]),
        ("Sinking funds", [["Fund", "Target", "Saved at 31/05/2025", "By"],
                           ["Tax (income tax, not GST)", 9000, 6150, "31/10/2025"],
                           ["Car rego", 950, 950, "18/07/2025"],
                           ["Tasmania trip", 2400, 2400, "17/04/2025"],
                           ["New lens (Sony 35 GM)", 2100, 640, "31/12/2025"],
                           ["Christmas", 800, 210, "01/12/2025"]])],
        "Household budget 2025", "Tahlia Brennan", "2025-01-04 14:00", "2025-06-01 10:20", widths={"Monthly": [36, 12, 10, 30]})

    # gear register (insurance)
    gear = [["Item", "Serial", "Bought", "Price", "Insured value", "Notes"],
            ["Sony A7 IV body (main)", "5073219", "14/06/2023", 3799, 3400, "Shutter count ~148k at Camera Clinic service Jan 2025"],
            ["Sony A7 III body (backup)", "4412908", "02/03/2020", 2899, 1500, "Second shooter body if Sam needs one"],
            ["Sony FE 24-70mm f/2.8 GM II", "1820455", "14/06/2023", 3299, 3000, "Cleaned and recalibrated Jan 2025"],
            ["Sony FE 85mm f/1.8", "1904473", "20/09/2021", 899, 700, "Headshots"],
            ["Sigma 35mm f/1.4 DG DN Art", "55902817", "11/02/2022", 1299, 1000, ""],
            ["Sony FE 70-200mm f/4 G OSS II", "1733021", "08/08/2024", 2349, 2200, "Ceremonies"],
            ["Godox AD200Pro (x2)", "AD2P-880132 / AD2P-880140", "02/11/2024", 1078, 1000, ""],
            ["DJI Mini 4 Pro", "1581F6Z9C23K0041", "19/05/2024", 1299, 1100, "Property - need CASA ReOC for paid work? (excluded category <250 g)"],
            ["MacBook Pro 14 M3 Pro", "C02FX2Q3MD6T", "30/01/2024", 3499, 2800, ""],
            ["Synology DS224+ NAS + 2x8TB", "2340QRN812604", "15/07/2024", 1180, 1000, "Backups - see Vault"],
            ["TOTAL", "", "", Formula("SUM(D2:D11)", 21600), Formula("SUM(E2:E11)", 17700), "Policy sum insured $18,500"]]
    save_xlsx("Business/Gear register.xlsx", [("Gear", gear)], "Gear register", "Tahlia Brennan", "2023-06-20 10:00", "2025-01-21 19:40",
              widths={"Gear": [32, 26, 12, 8, 12, 50]})


# ----------------------------------------------------------------------------------------
# Documents: home, car, super, health, dog, pottery, travel, exhibition; Downloads
# ----------------------------------------------------------------------------------------

def kv_pdf(pdf: PDF, pairs: list[tuple[str, str]], x2: float = 200) -> None:
    for k, v in pairs:
        pdf.row([k + ":", v], [56, x2])


def build_documents() -> None:
    # ---- lease and rent increase --------------------------------------------------------
    pdf = PDF("Residential rental agreement - 3/41 Hope St Brunswick", "Barkly Property Group", "2024-06-18 11:00", "REI Forms Live")
    pdf.footer = "Residential Tenancies Act 1997 (Vic) - Form 1 Residential rental agreement (fixed term 5 years or less)"
    pdf.line("RESIDENTIAL RENTAL AGREEMENT", 15, True)
    pdf.line("Fixed term agreement of not more than 5 years", 10)
    pdf.space(6)
    kv_pdf(pdf, [("Rental provider", "Kostas & Joanna Athanasiou"), ("Agent", "Barkly Property Group, 88 Barkly Square, Brunswick VIC 3056"),
                 ("Renters", "Tahlia Brennan; Devesh Kapoor"), ("Premises", ADDRESS), ("Start date", "01/07/2024"),
                 ("End date", "30/06/2025"), ("Rent", "$575.00 per week"), ("Payable", "fortnightly in advance ($1,150.00)"),
                 ("Payment", "EFT to agent's trust account, ref 3/41HOPE"),
                 ("Bond", "$2,300.00 (four weeks' rent)"), ("Bond lodged", "RTBA, bond no. 4471902")])
    pdf.space(6)
    pdf.heading("Additional terms", 12)
    for t in ["Pets: the rental provider consents to one dog (red kelpie, 'Biscuit'). The renter must repair any damage caused by the pet.",
              "Garden: the renters maintain the courtyard garden; the rental provider services the gutters twice a year.",
              "Urgent repairs: call Barkly Property Group on 03 9380 4410; after hours, Nick's Plumbing 0400 771 230.",
              "Smoke alarms are tested each year by Alarm Safe Victoria; the last test was 12/03/2024.",
              "Minimum standards: the premises meet the rental minimum standards at the start date."]:
        pdf.para(t)
    pdf.new_page()
    pdf.heading("Signatures", 12)
    pdf.para("Signed by the rental provider's agent on 18/06/2024 and by both renters on 19/06/2024.")
    pdf.save("Documents/Home/Lease 3-41 Hope St (2024-25).pdf", "2024-06-19 20:15")

    pdf = PDF("Notice of rent increase", "Barkly Property Group", "2025-04-14 10:30")
    pdf.line("NOTICE OF RENT INCREASE TO RENTER", 14, True)
    pdf.line("Section 44(1) Residential Tenancies Act 1997", 9)
    pdf.space(6)
    kv_pdf(pdf, [("To", "Tahlia Brennan and Devesh Kapoor"), ("Premises", ADDRESS), ("Date of notice", "14/04/2025"),
                 ("Current rent", "$575.00 per week"), ("New rent", "$610.00 per week"), ("Increase takes effect", "01/07/2025"),
                 ("Last increase", "01/07/2024 ($550.00 to $575.00)")])
    pdf.space(6)
    pdf.para("The rental provider offers a new 12-month fixed-term agreement from 01/07/2025 at the new rent. If you do not "
             "sign a new agreement the tenancy will continue as a periodic agreement. If you think the increase is excessive "
             "you can ask Consumer Affairs Victoria for a rent assessment within 30 days of receiving this notice.")
    pdf.save("Documents/Home/Rent increase notice 2025.pdf", "2025-04-15 18:02")

    def power_bill(rel, period, days, peak, offpeak, supply, total, due, issued, mtime, note):
        pdf = PDF("Kestrel Energy bill", "Kestrel Energy", mtime, "Kestrel billing")
        pdf.line("Kestrel Energy", 18, True)
        pdf.line("Your electricity bill", 12, True)
        kv_pdf(pdf, [("Account", "KE-30981174 (Tahlia Brennan)"), ("Supply address", ADDRESS), ("Bill issued", issued),
                     ("Billing period", f"{period} ({days} days)"), ("Amount due", f"${total}"), ("Due date", due)])
        pdf.space(6)
        pdf.table(["Charge", "Quantity", "Amount"], [
            ["Peak usage", f"{peak} kWh", f"${peak * 0.2915:.2f}"],
            ["Off-peak usage", f"{offpeak} kWh", f"${offpeak * 0.1892:.2f}"],
            ["Supply charge", f"{days} days", f"${days * supply:.2f}"]], [56, 300, 470], right={2})
        pdf.para(note)
        pdf.save(rel, mtime)

    power_bill("Documents/Home/Kestrel Energy bill Jan 2025.pdf", "15/10/2024 - 14/01/2025", 92, 610, 402, 1.1242, "365.40",
               "04/02/2025", "20/01/2025", "2025-01-21 19:00", "Includes GST. Pay by BPAY biller code 88122, ref 30981174.")
    power_bill("Documents/Home/Kestrel Energy bill Apr 2025.pdf", "15/01/2025 - 14/04/2025", 90, 742, 448, 1.1242, "412.18",
               "05/05/2025", "17/04/2025", "2025-04-21 20:40", "Your usage was 17% higher than the same period last year - "
               "February's heatwave days (41.2 C on 28 Feb) pushed up air-conditioner use.")

    # ---- car -------------------------------------------------------------------------
    pdf = PDF("Registration renewal notice", "VicRoads", "2025-06-02 06:00")
    pdf.line("VicRoads - Registration renewal notice", 14, True)
    kv_pdf(pdf, [("Registered operator", "Tahlia M Brennan"), ("Registration", "1XR 7QD"), ("Vehicle", "2019 Mazda CX-5 Maxx Sport, white"),
                 ("VIN", "JM0KF4W7A00381265"), ("Expiry date", "18/07/2025"), ("12 months", "$932.30 (incl. TAC charge $552.00)"),
                 ("6 months", "$478.15"), ("3 months", "$251.20")])
    pdf.para("Pay online, by phone 13 11 71 or at Australia Post before the expiry date. Your vehicle is in TAC zone "
             "Metropolitan. You can also pay with direct debit in quarterly instalments.")
    pdf.save("Documents/Car/VicRoads rego renewal 2025.pdf", "2025-06-04 21:12")

    pdf = PDF("Certificate of insurance - comprehensive car", "Bluestone Insurance", "2024-08-26 09:00")
    pdf.line("Bluestone Insurance - Comprehensive Car Insurance", 13, True)
    kv_pdf(pdf, [("Policy", "BSI-CAR-2208417"), ("Insured", "Tahlia Brennan"), ("Vehicle", "2019 Mazda CX-5 Maxx Sport 1XR 7QD"),
                 ("Period", "02/09/2024 to 02/09/2025"), ("Agreed value", "$26,500"), ("Basic excess", "$800"),
                 ("Business use", "Yes - photography business, carrying equipment"), ("Annual premium", "$1,284.60")])
    pdf.para("Equipment carried in the car is NOT covered by this policy; see your separate equipment policy.")
    pdf.save("Documents/Car/Bluestone car insurance 2024-25.pdf", "2024-08-26 20:40")

    # ---- super -----------------------------------------------------------------------
    pdf = PDF("Kookaburra Super annual statement 2023-24", "Kookaburra Super", "2024-09-20 08:00")
    pdf.line("Kookaburra Super - Annual statement 1 July 2023 to 30 June 2024", 13, True)
    kv_pdf(pdf, [("Member", "Tahlia Brennan"), ("Member number", "KS 88410236"), ("Investment option", "Balanced"),
                 ("Opening balance 01/07/2023", "$41,207.15"), ("Personal contributions", "$3,000.00 (deduction notice received 12/06/2024)"),
                 ("Contributions tax", "-$450.00"), ("Investment returns", "$5,412.88"), ("Fees and insurance", "-$257.66"),
                 ("Closing balance 30/06/2024", "$48,912.37")], 230)
    pdf.para("As a self-employed member you can claim a tax deduction for personal contributions once we have "
             "acknowledged your notice of intent.")
    pdf.save("Documents/Super/Kookaburra Super statement 2023-24.pdf", "2024-09-22 10:05")

    # ---- health ----------------------------------------------------------------------
    pdf = PDF("Tax invoice - Brunswick Dental Group", "Brunswick Dental Group", "2025-05-08 11:20")
    pdf.line("Brunswick Dental Group", 15, True)
    pdf.line("402 Sydney Road, Brunswick VIC 3056   03 9387 1150", 9)
    kv_pdf(pdf, [("Patient", "Tahlia Brennan"), ("Date", "08/05/2025"), ("Dentist", "Dr Hannah Kowalczyk")])
    pdf.table(["Item", "Service", "Fee"], [["011", "Comprehensive oral examination", "$75.00"],
                                         ["114", "Removal of calculus (scale and clean)", "$120.00"],
                                         ["022", "Intraoral radiograph x2", "$50.00"]], [56, 110, 470], right={2})
    pdf.table(["", "", ""], [["", "Total fee", "$245.00"], ["", "Medibank HICAPS benefit", "-$148.50"],
                             ["", "Gap paid", "$96.50"]], [56, 110, 470], right={2})
    pdf.para("Next check-up recommended in 6 months (November 2025).")
    pdf.save("Documents/Health/Dental invoice 2025-05-08.pdf", "2025-05-08 12:40")

    # ---- Biscuit -----------------------------------------------------------------------
    pdf = PDF("Vaccination certificate - Biscuit", "Brunswick Vet Clinic", "2025-03-11 17:10")
    pdf.line("Brunswick Vet Clinic - Vaccination certificate", 14, True)
    kv_pdf(pdf, [("Patient", "Biscuit (canine, red kelpie, female, desexed)"), ("Owner", "Tahlia Brennan & Dev Kapoor"),
                 ("Date of birth", "04/08/2021"), ("Microchip", "956000012840377"), ("Weight", "17.2 kg"),
                 ("Vaccination", "C5 (distemper, hepatitis, parvovirus, parainfluenza, Bordetella)"),
                 ("Given", "11/03/2025 by Dr Sunita Rao"), ("Next due", "11/03/2026")])
    pdf.para("Also seen today: left ear otitis externa - see treatment notes. Recheck in two weeks.")
    pdf.save("Documents/Biscuit/Vaccination certificate 2025.pdf", "2025-03-11 18:30")

    # ---- pottery ---------------------------------------------------------------------
    pdf = PDF("Clay Corner Studio - Term 2 2025 timetable", "Clay Corner Studio", "2025-03-28 12:00")
    pdf.line("Clay Corner Studio, 19 Beavers Rd, Northcote", 14, True)
    pdf.line("Term 2 2025 - adult classes", 12, True)
    pdf.table(["Class", "When", "Dates", "Fee"], [
        ["Wheel throwing 1", "Tue 6:30-8:30 pm", "29/04 - 17/06", "$420"],
        ["Wheel throwing 2", "Wed 6:30-8:30 pm", "30/04 - 18/06", "$420"],
        ["Handbuilding", "Thu 10:00-12:30", "01/05 - 19/06", "$460"],
        ["Glaze day (all classes)", "Sat 10:00-2:00", "07/06", "incl."]], [56, 190, 330, 470], right={3})
    pdf.para("No Wednesday class on 4 June (kiln maintenance) - a make-up session runs on Wednesday 25 June. "
             "Tutor for Wheel throwing 2: Hiroko Sato. Bisque firing every Friday; glaze firing fortnightly.")
    pdf.save("Documents/Pottery/Clay Corner Term 2 2025.pdf", "2025-04-02 20:00")

    # ---- travel: Tasmania --------------------------------------------------------------
    pdf = PDF("Spirit of Tasmania booking confirmation", "Spirit of Tasmania", "2025-03-03 21:14", "TT-Line booking engine")
    pdf.line("Spirit of Tasmania - Booking confirmation", 15, True)
    kv_pdf(pdf, [("Booking reference", "SOT7734218"), ("Lead passenger", "Tahlia Brennan"), ("Booked", "03/03/2025")])
    pdf.heading("Sailings", 12)
    pdf.table(["Sailing", "Depart", "Arrive"], [
        ["Geelong > Devonport (Spirit IV)", "Thu 17/04/2025 19:30", "Fri 18/04/2025 06:00"],
        ["Devonport > Geelong (Spirit IV)", "Thu 24/04/2025 09:00", "Thu 24/04/2025 19:00"]], [56, 250, 400])
    pdf.heading("Passengers, vehicle and pet", 12)
    pdf.table(["Item", "Details", "Fare"], [
        ["2 adults", "Tahlia Brennan, Devesh Kapoor", "$398.00"],
        ["Outbound cabin", "2-berth inside cabin (private ensuite)", "$236.00"],
        ["Return seating", "2 x Ocean recliner", "$48.00"],
        ["Vehicle", "Mazda CX-5 1XR 7QD, under 5.5 m, 1 bike on roof", "$418.00"],
        ["Pet", "1 dog (Biscuit) - on-deck kennel, both ways", "$46.00"],
        ["TOTAL PAID", "Visa ending 4471", "$1,146.00"]], [56, 170, 470], right={2})
    pdf.para("Check-in closes 60 minutes before departure at the Geelong terminal (Corio Quay Road, North Shore) and "
             "at Devonport (The Esplanade). Pets must be checked in at the pet check-in lane and stay in their kennel for "
             "the whole voyage; you can visit with staff at set times.")
    pdf.save("Documents/Travel/Tasmania 2025/Spirit of Tasmania booking SOT7734218.pdf", "2025-03-03 21:20")

    pdf = PDF("Booking confirmation - Binalong Bay", "Bay of Fires Shacks", "2025-02-26 13:00")
    pdf.line("Bay of Fires Shacks - Your stay is confirmed", 14, True)
    kv_pdf(pdf, [("Guest", "Tahlia Brennan"), ("Booking", "BF-22841"), ("Property", "'Gulch Shack', 14 Gulch Rd, Binalong Bay TAS 7216"),
                 ("Check-in", "Fri 18/04/2025 from 3:00 pm"), ("Check-out", "Wed 23/04/2025 by 10:00 am"), ("Nights", "5"),
                 ("Guests", "2 adults + 1 dog (pet-friendly, fenced yard)"), ("Total", "$1,240.00 (paid); pet fee and firewood payable on site")])
    pdf.para("Key: lockbox on the left of the front door, code 4417. Wood heater: please only burn the wood provided. "
             "Wi-Fi: GulchShack / saltysea22. Bins go out Tuesday night.")
    pdf.save("Documents/Travel/Tasmania 2025/Binalong Bay shack booking.pdf", "2025-02-26 13:05")

    doc = Docx("Tassie Easter 2025", "Tahlia Brennan", "2025-03-04 20:00", "2025-04-15 21:30")
    doc.h("Tassie Easter 2025 - plan", 0)
    doc.table([["Day", "Plan", "Sleep"],
               ["Thu 17 Apr", "Leave Brunswick 5:15 pm - Geelong terminal by 6:30 (Biscuit to pet lane)", "Spirit IV cabin"],
               ["Fri 18 Apr (Good Friday)", "Devonport 6 am - breakfast Ulverstone - drive east via Launceston", "Binalong Bay"],
               ["Sat 19 - Tue 22 Apr", "Bay of Fires: sunrise at the Gardens, Binalong beach walks, St Helens", "Binalong Bay"],
               ["Wed 23 Apr", "Check out 10 am - Scottsdale - Bridestowe lavender (closed?) - Devonport", "Mersey Bluff cabin"],
               ["Thu 24 Apr", "Day sailing 9 am, home around 8:30 pm", "Home"]])
    doc.p("Camera: only the A7 III and the 35 - holiday, not work! Drone for the Bay of Fires orange lichen rocks.")
    doc.p("Dev's leave approved 17-27 April. Anzac Day (Fri 25) at home to recover.")
    doc.save("Documents/Travel/Tasmania 2025/Tassie itinerary.docx", "2025-04-15 21:30")

    # ---- exhibition ----------------------------------------------------------------------
    def statement(final: bool) -> Docx:
        doc = Docx("Northside Light - artist statement", "Tahlia Brennan", "2025-05-09 20:30", "2025-05-29 22:10" if final else "2025-05-12 21:45")
        doc.h("Northside Light" + ("" if final else " (draft)"), 0)
        doc.p("Application for 'Local Ground', Sydney Road Project Space, 4-27 September 2025")
        doc.h("Artist statement", 1)
        if final:
            doc.p("Northside Light is a series of ten photographs of Brunswick and Coburg made in the forty minutes after sunrise, "
                  "when the light comes in low along the east-west streets and the suburb is briefly empty. Shot over one autumn "
                  "on my walks with Biscuit along Merri Creek, the series looks at the places that change fastest here - "
                  "laneways, shopfronts and the creek - before the day fills them.")
            doc.p("The ten prints are 50 x 70 cm archival pigment prints on Hahnemuhle Photo Rag, framed in Tasmanian oak.")
            doc.p("Word count: 96")
        else:
            doc.p("I have been photographing Brunswick at sunrise for about a year. Northside Light will be twelve images of "
                  "laneways, shopfronts and Merri Creek. [needs to be tighter - 150 words max]")
            doc.p("Twelve prints, 50 x 70, maybe framed in oak. Ask ProLab about Photo Rag vs Baryta pricing.")
        doc.h("Bio", 1)
        doc.p("Tahlia Brennan is a Brunswick-based photographer who works across weddings, portraits and commercial work.")
        return doc
    statement(False).save("Documents/Exhibition/Northside Light - artist statement draft.docx")
    statement(True).save("Documents/Exhibition/Northside Light - artist statement FINAL.docx")
    rows = [["Item", "Qty", "Unit", "Total"]]
    for item, q, u in [("Giclee print 50x70 Photo Rag (ProLab)", 10, 96), ("Frame, Tasmanian oak, museum glass", 10, 185),
                       ("Hanging kit + labels", 1, 60), ("Opening night drinks (share)", 1, 120)]:
        rows.append([item, q, u, Formula(f"B{len(rows)+1}*C{len(rows)+1}", q * u)])
    rows.append(["TOTAL", "", "", Formula(f"SUM(D2:D{len(rows)})", sum(r[3].value for r in rows[1:]))])
    rows.append(["Sale price per print (framed)", "", "", 650])
    save_xlsx("Documents/Exhibition/Northside Light - print costings.xlsx", [("Costs", rows)], "Print costings", "Tahlia Brennan",
              "2025-05-13 19:00", "2025-05-29 21:50", widths={"Costs": [40, 6, 8, 10]})


def build_downloads() -> None:
    pdf = PDF("Melbourne Photography Awards 2025 - Conditions of entry", "Melbourne Photography Awards", "2025-03-01 09:00")
    pdf.footer = "Melbourne Photography Awards Inc. - mpa.org.au"
    pdf.line("Melbourne Photography Awards 2025", 16, True)
    pdf.line("Conditions of entry", 12, True)
    for t in ["1. Entries open 3 March 2025 and close at 11:59 pm AEST on Sunday 29 June 2025.",
              "2. Categories: Portrait, Landscape & Urban, Documentary, Wedding, Commercial, Student.",
              "3. Entry fee: $35 per image; early-bird $25 per image for entries received by 31 May 2025.",
              "4. Images must have been taken after 1 January 2023 and must not have won another award.",
              "5. Finalists will be announced on 8 August 2025; the finalists' exhibition runs 22 August - 7 September.",
              "6. Files: JPEG, sRGB, 3000 px on the long edge, no watermark, no borders.",
              "7. The judges' decision is final. No correspondence will be entered into."]:
        pdf.para(t)
    pdf.save("Downloads/MPA-2025-conditions-of-entry.pdf", "2025-03-05 21:40")

    pdf = PDF("GST and BAS for sole traders - a quick guide", "Small Business Victoria", "2024-07-01 09:00")
    pdf.line("GST and BAS for sole traders - a quick guide", 15, True)
    for t in ["You must register for GST when your GST turnover is $75,000 or more.",
              "Most small businesses lodge a BAS quarterly. Due dates: Q1 (Jul-Sep) 28 October; Q2 (Oct-Dec) 28 February; "
              "Q3 (Jan-Mar) 28 April; Q4 (Apr-Jun) 28 July. A registered tax or BAS agent may have later due dates.",
              "GST on sales (label 1A) minus GST credits on purchases (label 1B) is what you pay (or get back).",
              "Cash basis: report GST when you are paid and when you pay. Accruals basis: when you invoice and are invoiced.",
              "Keep tax invoices for purchases over $82.50 (GST-inclusive) to claim GST credits.",
              "Overseas digital services may or may not include Australian GST - check the invoice."]:
        pdf.para(t)
    pdf.save("Downloads/GST-and-BAS-quick-guide.pdf", "2025-01-24 14:12")

    pdf = PDF("Travelling with pets", "Spirit of Tasmania", "2024-12-01 09:00")
    pdf.line("Spirit of Tasmania - Travelling with pets", 15, True)
    for t in ["Pets travel in kennels on the vehicle deck or in pet-friendly cabins (limited, book early).",
              "Kennel fee $23 per pet per sailing. Pets must be at least 12 weeks old and vaccinated.",
              "Dogs must be checked in at least 60 minutes before departure; bring a lead, water bowl and bedding.",
              "Visits to kennels are escorted by crew at set times during day sailings only.",
              "Tasmania has strict biosecurity rules: declare pet food; no fresh fruit or vegetables."]:
        pdf.para(t)
    pdf.save("Downloads/Spirit-of-Tasmania-pets.pdf", "2025-03-02 20:31")

    # public parkrun results for one event (other people's data)
    r = rng("parkrun-results")
    first = ["Liam", "Olivia", "Noah", "Charlotte", "Jack", "Amelia", "William", "Isla", "Henry", "Mia", "Oliver", "Ava",
             "Thomas", "Grace", "Lucas", "Chloe", "James", "Zoe", "Ethan", "Ruby", "Harrison", "Sophie", "Archie", "Matilda"]
    last = ["Smith", "Nguyen", "Jones", "Williams", "Brown", "Wilson", "Taylor", "Kelly", "Papadopoulos", "Singh", "Chen",
            "Murphy", "Walker", "Rossi", "O'Brien", "Tran", "Martin", "Ryan", "Anderson", "Khan", "Lee", "Campbell"]
    times = sorted(r.uniform(16.5 * 60, 25 * 60 + 30) for _ in range(46)) + [25 * 60 + 38] + \
        sorted(r.uniform(25 * 60 + 45, 48 * 60) for _ in range(84))
    rows = []
    for i, t in enumerate(times, start=1):
        name = f"{r.choice(first)} {r.choice(last).upper()}"
        g = r.choice(["M", "F"])
        age = r.choice(["SM30-34", "SW35-39", "VM40-44", "VW45-49", "JM15-17", "SW30-34", "VM50-54", "VW55-59"])
        if i == 47:
            name, g, age = "Tahlia BRENNAN", "F", "SW35-39"
        rows.append([i, name, f"{int(t // 60):02d}:{int(t % 60):02d}", g, age, r.choice(["", "", "Coburg Harriers", "Merri Runners", ""])])
    write_csv("Downloads/merri-creek-parkrun-event-218-results.csv", ["Position", "parkrunner", "Time", "Gender", "Age category", "Club"],
              rows, "2025-03-22 12:05")


# ----------------------------------------------------------------------------------------
# Mail: Thunderbird Local Folders (Inbox, Sent), an archive mbox, saved .eml files
# ----------------------------------------------------------------------------------------

# Saturday parkrun: (date, event number, time, position)
PARKRUN = [("2025-01-04", 207, "26:52", 58), ("2025-01-11", 208, "26:31", 55), ("2025-01-18", 209, "27:05", 61),
           ("2025-02-01", 211, "26:18", 52), ("2025-02-08", 212, "26:02", 50), ("2025-02-22", 214, "25:57", 49),
           ("2025-03-01", 215, "25:49", 51), ("2025-03-22", 218, "25:38", 47), ("2025-03-29", 219, "25:21", 44),
           ("2025-04-05", 220, "25:30", 46), ("2025-04-12", 221, "25:06", 41), ("2025-05-03", 224, "24:58", 39),
           ("2025-05-10", 225, "25:12", 43), ("2025-05-17", 226, "24:52", 37), ("2025-05-24", 227, "24:49", 40),
           ("2025-05-31", 228, "24:41", 35), ("2025-06-14", 230, "24:47", 38)]


def M(date: str, frm: str, to, subject: str, body: str, msgid: str, **kw) -> dict:
    return dict(date=date, frm=frm, to=[to] if isinstance(to, str) else to, subject=subject, body=body, msgid=msgid, **kw)


def parkrun_mail(d: str, ev: int, t: str, pos: int) -> dict:
    dd = day(d)
    return M(f"{d} 11:{10 + ev % 40:02d}", addr("parkrun", "results@parkrun.com"), TAHLIA_P,
             f"Your Merri Creek parkrun result for event #{ev}",
             f"""Hi Tahlia,

Congratulations on completing the Merri Creek parkrun today ({dd.strftime('%d/%m/%Y')}).

Your time was {t}.
You finished in position {pos} and were {pos // 3 + 4} of the women.
Total parkruns: {31 + PARKRUN.index(next(p for p in PARKRUN if p[0] == d))}

Thank you to the volunteers who made today possible. See you next Saturday at 8:00 am at the Coburg Lake end of the trail.

parkrun Australia
""", f"pr{ev}.a1738{ev}@parkrun.com")


def build_mail() -> None:
    inbox: list[dict] = []
    # --- the wedding --------------------------------------------------------------------
    inbox.append(M("2025-02-20 09:14", LINH, TAHLIA, "Re: Final timeline for the 15th",
                   """Hi Tahlia,

Thanks so much for the call on Tuesday - it really helped. Here's everything in writing so you have it in one place.

Numbers: we've finally locked it in at 112 guests (the RSVPs came back lower than we thought - lots of Ben's
interstate cousins can't make it). Kids: 9 of those, all in the family formals.

Timeline:
- 12:15 you arrive at the cottage for my prep (hair and makeup from 10)
- 2:15 first look (as discussed)
- 3:30 ceremony on the lawn terrace - celebrant is Rosa Tran
- 4:00 - 4:30 family formals straight after the ceremony (list below)
- 4:30 - 5:15 couple portraits in the vines
- 6:00 reception in the Barrel Hall
- 7:30 speeches, 8:15 first dance
- 9:15 sparkler exit (the venue has approved it, 60 sparklers)

Family formals: Nguyen side (parents, Ba Noi, my brother Khoa and his partner), Walsh side (Ben's mum and dad, Nan
Nora, his sisters), then everyone together. Khoa will wrangle.

Bridal party is 8 (4 each side). Sam is welcome to sit with the band for dinner.

Can't believe it's less than a month away!!

Linh
""", "CAJx7Nq2e-linh-0220@mail.outlook.com", reply_to_id="tb-timeline-0217@tahliabrennan.com.au"))
    inbox.append(M("2025-03-16 20:41", SAM, TAHLIA, "Invoice - Nguyen-Walsh second shoot",
                   """Hey T,

What a day. Attached is my invoice for yesterday - 6 hours at $120 = $720. I'm not registered for GST so no GST on it.
BSB 063-011 account 1093 4482. Cards are backed up to my drive and I'll drop the SSD at yours on Tuesday.

The sparkler exit shots from the balcony came out great.

Sam
""", "sam-inv-0316@samokafor.photo"))
    inbox.append(M("2025-02-13 16:02", addr("Fiona Mercer", "fiona.mercer@hartleylegal.com.au"), TAHLIA, "Headshots - two partners missed out",
                   """Hi Tahlia,

Thanks again for yesterday, everyone loved the process. Two of our partners, Greg Hartley and Anika Shah, were in court
and missed their slots. Could you come back on Thursday 6 March at 9:00 am? Same floor (Level 9), boardroom 2.
We'd like them to match the grey-backdrop look of the others.

Kind regards,
Fiona Mercer | Office Manager | Hartley Legal
""", "HL-0213-fm@hartleylegal.com.au"))
    inbox.append(M("2025-04-03 19:22", GRACE, TAHLIA, "Daylesford - final details!",
                   """Hi Tahlia!

Final numbers for the 26th are 86 guests. Ceremony still 2 pm on the jetty lawn at Wombat Hill Estate, with the
Boathouse room as the wet-weather plan. Marco's Nonna arrives from Adelaide on Thursday, so please grab a photo
of her with all eleven grandkids at the start of formals.

Dinner for you and Sam at 6:30 in the kitchen courtyard.

x Grace
""", "grace-0403-final@gmail.com"))
    # --- agency bookings ------------------------------------------------------------------
    sel = [s for s in HR_SHOOTS if s["date"].year == 2025][:: 4]
    for s in sel:
        d = s["date"] - dt.timedelta(days=3 if s["date"].weekday() >= 3 else 4)
        inbox.append(M(f"{d.isoformat()} 1{s['n'] % 6}:{(s['n'] * 7) % 60:02d}", PRIYA, TAHLIA,
                       f"Shoot booking: {s['address']} - {s['date'].strftime('%a %d %b')} {s['time']}",
                       f"""Hi Tahlia,

New listing for you: {s['address']}.
{s['date'].strftime('%A %d %B')} at {s['time']}{' - plus a twilight, please arrive 30 min before sunset' if s['twilight'] else ''}.
Vendor will leave a key in the lockbox (code with the office). Usual brief - wide interiors, kitchen and bathroom
details, front facade, no people, no cars in the driveway.

Thanks!
Priya
""", f"hr-book-{s['n']}@harcourtrowe.com.au"))
    inbox.append(M("2025-04-10 12:05", PRIYA, TAHLIA, "Winter twilights",
                   """Hi Tahlia,

With daylight saving over, sunset is now around 5:50 pm and will be about 5:10 by June, so for twilight add-ons
please aim to arrive 45 minutes before sunset rather than 30 (the vendors like the lights on early). Rate stays
the same ($90 + GST).

From May the office opens at 8:30 instead of 9, if you need to grab keys.
Also - the office is closed Friday 25 April for Anzac Day.

Priya
""", "hr-twilight-0410@harcourtrowe.com.au"))
    # --- accountant ---------------------------------------------------------------------
    q3 = FACTS["bas_q3"]
    inbox.append(M("2025-05-19 14:37", RHONDA, TAHLIA, "BAS Jan-Mar lodged",
                   f"""Hi Tahlia,

I've lodged your March quarter BAS today through the agent portal from your workings - thanks for getting them to
me early.

  G1 total sales       ${q3['g1']:,.2f}
  1A GST on sales      ${q3['a1']:,.2f}
  1B GST on purchases  ${q3['b1']:,.2f}
  Amount payable       ${q3['net']:,.2f}

Because we lodge as your agent, payment is due by Monday 26 May. BPAY biller code 75556, reference 551004
(your EFT code) as usual.

My fee for this quarter is $275 + GST ($302.50); invoice attached separately.

For the end of year: please send the home-office hours log, the car logbook and your super contribution details
by 31 July and I'll get the return done in August.

Warm regards,
Rhonda Pellegrini CA
Pellegrini & Co, 14 Victoria St, Coburg
""", "PC-0519-rp@pellegrinico.com.au"))
    # --- pottery, vet, gear ---------------------------------------------------------------
    inbox.append(M("2025-06-02 17:48", CLAY, [TAHLIA_P], "Glaze firing done - pick-up times",
                   """Hi Wednesday wheel crew,

The glaze kiln is unpacked and it's a good one - lots of lovely celadon. Your pieces are on shelf C in the back room.
Pick-up is from Thursday 12 June, 4 - 7 pm, or Saturday 14 June, 10 am - 1 pm. Anything left after 28 June goes in
the seconds box.

Reminder: no class this Wednesday (4 June, kiln maintenance); the make-up class is Wednesday 25 June.
Term 3 enrolments open Monday 23 June.

Hiroko & the Clay Corner team
""", "cc-0602-glaze@claycorner.com.au"))
    inbox.append(M("2025-01-20 11:30", addr("Camera Clinic Richmond", "service@cameraclinic.com.au"), TAHLIA,
                   "Your Sony A7 IV is ready (job CC-40912)",
                   """Hi Tahlia,

Your camera (Sony ILCE-7M4, serial 5073219) is ready to collect. Work done: sensor clean, shutter check
(actuations 148,312 - rated to 500,000), firmware update to 4.01, 24-70 GM II recalibrated.

Total $289.00 incl. GST. Open Mon-Fri 9-5:30, Sat 10-2.

Camera Clinic, 201 Swan St, Richmond
""", "cc40912@cameraclinic.com.au"))
    inbox.append(M("2025-03-24 09:00", addr("Brunswick Vet Clinic", "reception@brunswickvet.com.au"), TAHLIA_P,
                   "Reminder: Biscuit's ear recheck tomorrow",
                   "Hi Tahlia,\n\nA reminder that Biscuit is booked for her ear recheck with Dr Rao tomorrow, Tuesday 25 March, at 5:40 pm.\n\nBrunswick Vet Clinic\n",
                   "bvc-rem-0324@brunswickvet.com.au"))
    inbox.append(M("2025-03-24 14:02", addr("Marco Ferrante", "marco@littleochre.com.au"), TAHLIA, "Thursday shoot",
                   """Hey Tahlia,

All set for Thursday 7 am. Kitchen will plate 14 dishes plus drinks; I'll have the list on the whiteboard by the
pass. The matcha is the one we want for Instagram. We open at 8:30 so the dining room is yours until then.

Marco
""", "lo-0324@littleochre.com.au"))
    inbox.append(M("2025-05-29 10:15", addr("Barkly Property Group", "pm@barklyproperty.com.au"), [TAHLIA_P, DEV],
                   "Routine inspection - 3/41 Hope St",
                   "Dear Tahlia and Devesh,\n\nWe will carry out a routine inspection on Tuesday 3 June between 10 and 11 am. You don't need to be home. Please secure Biscuit in the courtyard.\n\nAlso a reminder that your new lease from 1 July is ready to sign in the portal.\n\nBarkly Property Group\n",
                   "bpg-insp-0529@barklyproperty.com.au"))
    inbox.append(M("2025-03-28 22:10", DEV, TAHLIA_P, "Spirit - kennel",
                   """Rang the Spirit - Biscuit's kennel is on deck 5 near the lifts, and they said bring her own blanket and
a water bowl that clips on. Also: no fruit across the border, so eat the mandarins on the boat haha.

My roster's out - I'm on nights the week after we get back (28 Apr - 1 May), so Anzac Day is our lazy day.
D x
""", "dev-0328@gmail.com"))
    inbox.append(M("2025-05-20 18:44", DEB, TAHLIA_P, "Sunday",
                   """Hi love,

Lunch Sunday the 25th as planned? I'll do the lamb. Bring Biscuit - Rusty misses her. Could you have a look at the
printer while you're here, it's doing the thing again.

Love Mum
""", "deb-0520@bigpond.com"))
    inbox.append(M("2025-03-03 08:00", addr("Melbourne Photography Awards", "hello@mpa.org.au"), TAHLIA, "Entries are open for MPA 2025",
                   "Entries for the 2025 Melbourne Photography Awards are now open. Early-bird pricing ($25 per image) until 31 May. Entries close 29 June.\n\nmpa.org.au\n",
                   "mpa-open-2025@mpa.org.au"))
    inbox.append(M("2025-06-05 16:30", addr("Mel Dunstan", "mel@saltbushyoga.com.au"), TAHLIA, "Thank you!",
                   "Tahlia, thank you for this morning - the studio has never looked so good. Send the invoice whenever. Mel\n",
                   "sy-0605@saltbushyoga.com.au"))
    inbox.append(M("2025-04-22 21:02", LINH, TAHLIA, "Re: Your gallery is ready!",
                   "We've been crying at the laptop for an hour. THANK YOU. Mum wants prints of the Ba Noi one. Linh xx\n",
                   "linh-0422-gallery@mail.outlook.com", reply_to_id="tb-gallery-nw@tahliabrennan.com.au"))
    for p in PARKRUN:
        if p[0] >= "2025-02-22":
            inbox.append(parkrun_mail(*p))
    r = rng("inbox-filler")
    for i, (d, who, subj, body) in enumerate([
        ("2025-01-14 10:02", addr("Aussie Broadband", "noreply@aussiebroadband.com.au"), "Your bill is ready", "Your January bill of $89.00 will be debited on 21/01/2025."),
        ("2025-02-11 13:40", addr("Pixieset", "noreply@pixieset.com"), "Hartley Legal Headshots: 18 new downloads", "Your client downloaded 18 photos from 'Hartley Legal Headshots'."),
        ("2025-04-29 07:55", addr("Pixieset", "noreply@pixieset.com"), "Nguyen-Walsh Wedding: 214 favourites", "Linh Nguyen added 214 photos to the favourites list 'Album picks'."),
        ("2025-05-05 19:12", addr("Caitlin Brennan", "caitlin.brennan@bigpond.com"), "Re: Saturday", "Ollie has footy at 9 so the party is still 11 - 1. Park on Eastern Beach Rd. C x"),
        ("2025-06-10 08:30", addr("Bluestone Insurance", "noreply@bluestone.com.au"), "Your policy documents", "Your car insurance renews on 02/09/2025. We will send your renewal offer 4 weeks before."),
        ("2025-06-16 12:00", addr("Sydney Road Project Space", "curator@srps.org.au"), "Local Ground - application received", "Thanks Tahlia, we received your application for Local Ground. Decisions by 30 June."),
    ]):
        inbox.append(M(d, who, TAHLIA if "Pixieset" in who or "Sydney" in who else TAHLIA_P, subj, body + "\n", f"filler-{i}-{r.randint(10**6, 10**7)}@mail.example"))
    mbox("Mail/Local Folders/Inbox", inbox, "2025-06-19 21:40")
    FACTS["inbox"] = inbox

    # --- Sent ----------------------------------------------------------------------------
    sent: list[dict] = []
    questionnaire = """Hi {name},

Only eight weeks to go! Here's my wedding-day questionnaire - it takes about 20 minutes and it's what I build your
photo timeline from: family formals list, key people, surprises, the things you'd hate me to miss.

Could you send it back within two weeks? Then we'll have a 30-minute call to walk through the timeline.

Tahlia
"""
    sent.append(M("2025-01-17 10:05", TAHLIA, LINH, "Your wedding questionnaire (8 weeks to go!)", questionnaire.format(name="Linh and Ben"), "tb-q-nw@tahliabrennan.com.au"))
    sent.append(M("2025-02-28 09:48", TAHLIA, GRACE, "Your wedding questionnaire (8 weeks to go!)", questionnaire.format(name="Grace and Marco"), "tb-q-lb@tahliabrennan.com.au"))
    sent.append(M("2025-02-17 18:20", TAHLIA, LINH, "Final timeline for the 15th", "Hi Linh, great to chat today. Could you put the final numbers and timeline in an e-mail so I have it in writing? T\n",
                  "tb-timeline-0217@tahliabrennan.com.au"))
    for ym, no, d in [("2024-12", "INV-2025-001", "2025-01-06 09:42"), ("2025-01", "INV-2025-002", "2025-02-03 09:27"),
                      ("2025-02", "INV-2025-005", "2025-03-03 09:33"), ("2025-03", "INV-2025-008", "2025-04-01 09:20"),
                      ("2025-04", "INV-2025-009", "2025-05-01 09:52"), ("2025-05", "INV-2025-010", "2025-06-02 09:24")]:
        no_, total, n, twi = FACTS[f"hr_{ym}"]
        month = dt.date(int(ym[:4]), int(ym[5:]), 1).strftime("%B")
        sent.append(M(d, TAHLIA, PRIYA, f"Invoice {no} - {month} shoots",
                      f"Hi Priya,\n\nAttached is {no} for {month}: {n} shoots{f' and {twi} twilight' if twi else ''}, total ${total:,.2f} incl. GST.\n\nThanks!\nTahlia\n",
                      f"tb-{no.lower()}@tahliabrennan.com.au"))
    for s in sel:
        d = s["date"] - dt.timedelta(days=3 if s["date"].weekday() >= 3 else 4)
        sent.append(M(f"{d.isoformat()} 1{s['n'] % 6 + 1}:{(s['n'] * 11) % 60:02d}", TAHLIA, PRIYA,
                      f"Re: Shoot booking: {s['address']} - {s['date'].strftime('%a %d %b')} {s['time']}",
                      f"Confirmed - see you there at {s['time']}. Images in Dropbox by 9 am the next business day.\n\nTahlia\n",
                      f"tb-hr-conf-{s['n']}@tahliabrennan.com.au", reply_to_id=f"hr-book-{s['n']}@harcourtrowe.com.au"))
    sent.append(M("2025-02-19 15:12", TAHLIA, addr("Fiona Mercer", "fiona.mercer@hartleylegal.com.au"), "Your headshot gallery",
                  "Hi Fiona,\n\nThe gallery is live: 36 retouched images (two looks each for 18 people). Password: hartley-0212. The two partners we'll add after 6 March.\n\nTahlia\n",
                  "tb-gallery-hl@tahliabrennan.com.au"))
    sent.append(M("2025-04-22 18:30", TAHLIA, LINH, "Your gallery is ready!",
                  "Hi Linh and Ben,\n\nIt's here! 642 photos from your day. Password nw-0315. Downloads are on for 12 months. Choose your album picks with the heart button.\n\nTahlia\n",
                  "tb-gallery-nw@tahliabrennan.com.au"))
    sent.append(M("2025-04-22 16:50", TAHLIA, RHONDA, "Q3 BAS workings", "Hi Rhonda, my Jan-Mar BAS workings attached (cash basis as usual). Thanks! Tahlia\n", "tb-bas-q3@tahliabrennan.com.au"))
    sent.append(M("2025-05-30 22:05", TAHLIA, addr("Sydney Road Project Space", "curator@srps.org.au"), "Application - Local Ground - Northside Light",
                  "Hello,\n\nPlease find attached my application for Local Ground: artist statement, 10 images, CV.\n\nTahlia Brennan\n", "tb-srps@tahliabrennan.com.au"))
    sent.append(M("2025-04-13 20:14", TAHLIA_P, CLAY, "Term 2 - Wednesday wheel 2", "Hi Hiroko, I'd like to re-enrol in Wheel 2 on Wednesdays for term 2. Paid the $420 today. Tahlia\n", "tb-clay-t2@iinet.net.au"))
    mbox("Mail/Local Folders/Sent", sent, "2025-06-02 09:24")

    # --- Archive 2024 --------------------------------------------------------------------
    arch: list[dict] = []
    arch.append(M("2024-10-02 15:22", PRIYA, TAHLIA, "Photography agreement - rates and turnaround",
                  """Hi Tahlia,

Great to meet you on Monday. As discussed, here's what we'd like to lock in from 1 November:

- Standard shoot: $220 + GST, up to 25 edited images (interiors, exteriors, 3-4 details)
- Twilight add-on: $90 + GST per property
- Delivery: edited images in the shared Dropbox by 9 am the next business day, so listings can go live that morning
- Invoicing: one invoice per month for all shoots, 14-day terms
- Bookings come from me by e-mail at least 2 business days ahead

Let me know if that works and I'll get the paperwork over.

Priya Raman | Marketing Manager | Harcourt & Rowe Real Estate, Brunswick
""", "hr-agree-1002@harcourtrowe.com.au"))
    arch.append(M("2024-10-02 20:40", TAHLIA, PRIYA, "Re: Photography agreement - rates and turnaround",
                  "Hi Priya, that all works for me. Looking forward to it! Tahlia\n", "tb-hr-agree@tahliabrennan.com.au", reply_to_id="hr-agree-1002@harcourtrowe.com.au"))
    arch.append(M("2024-07-28 10:00", addr("Lens & Shutter Insurance", "policies@lensandshutter.com.au"), TAHLIA, "Your equipment policy renewal",
                  """Dear Tahlia,

Your Professional Photographer policy LS-PP-118204 renews on 01/08/2024.

Portable equipment sum insured: $18,500 (unspecified items up to $2,500 each; specified items per schedule)
Excess: $250 per claim ($500 for theft from an unattended vehicle)
Public liability: $20,000,000
Professional indemnity: $1,000,000
Annual premium: $642.00 incl. GST and stamp duty

Cover applies anywhere in Australia. No action is needed: we will charge your card on file.

Lens & Shutter Insurance
""", "ls-renew-2024@lensandshutter.com.au"))
    arch.append(M("2024-10-20 21:16", LINH, TAHLIA, "Wedding enquiry - 15 March 2025",
                  "Hi Tahlia,\n\nBen and I are getting married on Saturday 15 March 2025 at Coldstream Ridge in the Yarra Valley. We're expecting about 130 guests. Are you available? We love your creek sunrise work.\n\nLinh\n",
                  "linh-enq-1020@mail.outlook.com"))
    arch.append(M("2024-11-11 19:02", LINH, TAHLIA, "Re: Updated quote",
                  "Perfect - the 9 hours with Sam and the sparkler exit is exactly what we want. Let's do it! Deposit coming this week. Linh\n",
                  "linh-accept-1111@mail.outlook.com"))
    arch.append(M("2024-08-16 09:30", TAHLIA, addr("Priya Patel", "priya.patel.88@gmail.com"), "Your wedding questionnaire (8 weeks to go!)",
                  questionnaire.format(name="Priya and Aaron"), "tb-q-pm@tahliabrennan.com.au"))
    arch.append(M("2024-05-14 12:00", addr("Barkly Property Group", "pm@barklyproperty.com.au"), [TAHLIA_P, DEV], "Lease renewal 3/41 Hope St",
                  "Dear Tahlia and Devesh,\n\nThe owners are happy to offer a new 12-month lease from 1 July 2024 at $575 per week (currently $550). The bond will be topped up to $2,300 (four weeks' rent). Documents to follow.\n\nBarkly Property Group\n",
                  "bpg-renew-2024@barklyproperty.com.au"))
    arch.append(M("2024-09-02 17:30", RHONDA, TAHLIA, "Your 2023-24 tax return",
                  "Hi Tahlia,\n\nYour 2023-24 return is lodged. Taxable income $71,840; refund $1,284.15 expected within two weeks. The $3,000 super contribution was claimed as a deduction.\n\nRhonda\n",
                  "pc-itr-2024@pellegrinico.com.au"))
    arch.append(M("2024-12-18 20:11", DEB, TAHLIA_P, "Christmas",
                  "Hi love, Christmas at Caitlin's in Geelong this year - lunch at 1. You're on pavlova. Boxing Day back here? Love Mum\n",
                  "deb-xmas-2024@bigpond.com"))
    arch.append(M("2024-09-30 10:00", addr("Pixieset", "noreply@pixieset.com"), TAHLIA, "Spring mini sessions: 12 bookings",
                  "You have 12 bookings for 'Spring minis - Edinburgh Gardens' (Sat 26 and Sun 27 October).\n", "pxs-spring-2024@pixieset.com"))
    r = rng("archive")
    for k, w in enumerate(sorted(r.sample(range(0, 51), 14))):
        d = dt.date(2024, 1, 6) + dt.timedelta(days=7 * w)
        t = f"{27 + r.randint(0, 1)}:{r.randint(0, 59):02d}"
        ev = 153 + (d - dt.date(2024, 1, 6)).days // 7
        arch.append(M(f"{d.isoformat()} 11:{20 + k:02d}", addr("parkrun", "results@parkrun.com"), TAHLIA_P,
                      f"Your Merri Creek parkrun result for event #{ev}",
                      f"Hi Tahlia,\n\nCongratulations on completing the Merri Creek parkrun today.\n\nYour time was {t}.\n\nparkrun Australia\n",
                      f"pr{ev}.2024.{k}@parkrun.com"))
    uniq = {}
    for m in arch:
        uniq[m["msgid"]] = m
    mbox("Mail/Archive 2024.mbox", list(uniq.values()), "2025-01-02 10:15")
    FACTS["archive"] = list(uniq.values())


# ----------------------------------------------------------------------------------------
# Saved .eml files, including two club newsletters (the May one is > 30,000 characters)
# ----------------------------------------------------------------------------------------

MPC = addr("Melbourne Photo Collective", "digest@melbournephotocollective.org.au")

LENSES = ["Sony FE 35mm f/1.4 GM", "Sigma 24-70mm f/2.8 DG DN II", "Tamron 28-75mm f/2.8 G2", "Nikon Z 50mm f/1.4",
          "Canon RF 28-70mm f/2.8", "Fujifilm XF 33mm f/1.4", "Viltrox 75mm f/1.2", "Sony FE 16-25mm f/2.8 G",
          "Sigma 50mm f/1.2 DG DN Art", "Samyang 35-150mm f/2-2.8", "Canon RF 100mm f/2.8 Macro", "Nikon Z 70-180mm f/2.8"]
MEMBERS = [("Aroha Williams", "Footscray", "street"), ("Declan Murphy", "Preston", "birds"), ("Mei Chen", "Box Hill", "architecture"),
           ("Rohan Pillai", "Werribee", "astro"), ("Sally Kerr", "Castlemaine", "film"), ("Jacob Ostrowski", "St Kilda", "dance"),
           ("Nadia Haddad", "Coburg", "documentary"), ("Tom Fairweather", "Ballarat", "landscape")]


def newsletter_body(month: str, r: random.Random, long: bool) -> str:
    out = []
    out.append(f"MELBOURNE PHOTO COLLECTIVE - {month.upper()} DIGEST\n")
    out.append("Hello members,\n")
    out.append(
        "Autumn has been kind to us. The mornings along the Yarra have been full of fog, the afternoons have been soft, and "
        "the club rooms in Collingwood have been busier than at any time since we moved in. Thank you to everyone who came "
        "to the print night, and to the volunteers who hung forty-two prints in under an hour. This digest is a long one: "
        "there's a feature on low winter light, gear notes from members, the monthly competition results, classifieds, and "
        "at the end the events calendar and the notices from the committee.\n")
    out.append("FROM THE COMMITTEE\n")
    out.append(
        "Membership renewals for 2025-26 open on 1 July. Fees stay at $95 (concession $60). The committee has agreed to "
        "spend the surplus from last year's exhibition on a second backdrop stand and a colour-calibrated monitor for the "
        "editing nights. Minutes of the April meeting are on the website under Members > Committee. If you'd like to join "
        "the committee, nominations close at the AGM in August.\n")
    # feature article
    feature = [
        "Winter in Melbourne gives you a sun that never gets very high. At midday in June it sits at about 28 degrees "
        "above the horizon, which means the light that photographers chase in summer at seven in the morning is available "
        "for most of the day. Long shadows, raking light on brick and bluestone, and warm reflections off glass towers are "
        "there at lunchtime. The trick is to stop thinking of winter as the grey season and start thinking of it as a season "
        "of low-angle light with short, dramatic windows.",
        "Start by learning where the light falls on your street. East-west streets get light straight down their length at "
        "sunrise and sunset; north-south streets get a strip of light across the road around midday. In the inner north "
        "that means the laneways off Sydney Road glow for about twenty minutes after sunrise, while Lygon Street's shopfronts "
        "catch the afternoon sun on the western side.",
        "Exposure in low light is a balancing act. Meter for the highlights and let the shadows fall away; modern sensors "
        "recover two or three stops of shadow detail without much noise, but blown highlights are gone for good. If your "
        "camera has a highlight-weighted metering mode, try it for a week and see how your keeper rate changes.",
        "Fog deserves its own paragraph. Melbourne gets most of its foggy mornings between May and August, usually after a "
        "clear, still night. The Bureau's forecasts mention it, but the best predictor is your own window: if the street "
        "lights have a halo at five in the morning, go. Fog simplifies a scene, hides clutter and separates layers. Expose "
        "a third to two-thirds of a stop brighter than the meter suggests or your fog will turn grey.",
        "For portraits, winter light is forgiving. Put your subject with their back to the low sun and use a reflector or a "
        "white wall to bounce light back into the face. A 5-in-1 reflector on the gold side can be too warm; the silver-white "
        "zebra side is usually enough. If you use flash, gel it with a quarter CTO to match the warmth of the sun.",
        "Finally, look after your batteries. Lithium-ion cells lose capacity in the cold; keep spares in an inside pocket "
        "and swap them before they die. A lens hood and a microfibre cloth will deal with most of the condensation when you "
        "come inside from a cold morning shoot - or leave the bag zipped for half an hour and let it warm up slowly.",
    ]
    out.append("FEATURE: CHASING LOW WINTER LIGHT\n")
    out += [p + "\n" for p in feature]
    if long:
        out.append("MORE ON WINTER: A MEMBER'S DIARY\n")
        for k in range(10):
            sub = r.choice(["the Kensington stockyards", "Williamstown pier", "the Merri Creek trail", "Docklands at dawn",
                            "the Dandenongs in fog", "Werribee Gorge", "the Fitzroy Gardens", "Princes Bridge at blue hour"])
            out.append(
                f"Week {k + 1}: I went out to {sub} on a {r.choice(['clear', 'still', 'misty', 'cold', 'windy'])} morning "
                f"and shot for about {r.choice([40, 50, 60, 75, 90])} minutes. The light came up at about "
                f"{r.choice(['7:12', '7:18', '7:25', '7:31'])} and turned from blue to gold within ten minutes. I used "
                f"{r.choice(LENSES)} almost the whole time, bracketing three frames a stop apart because the sky was much "
                f"brighter than the ground. Back home I found {r.choice(['two', 'three', 'four', 'a handful of'])} frames I "
                f"liked, and one I'd print. Lesson of the week: {r.choice(['arrive twenty minutes earlier than you think', 'take a thermos', 'check the tide times', 'turn around - the best light was behind me', 'leave the zoom at home', 'shoot the fog from above'])}.\n")
    out.append("GEAR NOTES FROM MEMBERS\n")
    for lens in (LENSES if long else LENSES[:4]):
        who = r.choice(MEMBERS)
        out.append(
            f"{lens} - reviewed by {who[0]} ({who[1]}). "
            f"{who[0].split()[0]} used it for {r.choice(['three months', 'a full season', 'six weeks', 'a year'])} of {who[2]} work. "
            f"Sharpness is {r.choice(['excellent from wide open', 'very good stopped down a little', 'good in the centre and soft at the edges wide open'])}, "
            f"autofocus is {r.choice(['fast and quiet', 'reliable but a little noisy', 'quick in good light and hesitant in the dark'])}, "
            f"and the build is {r.choice(['solid and weather-sealed', 'light but plasticky', 'heavy but reassuring'])}. "
            f"Bokeh is {r.choice(['smooth', 'a little busy in the highlights', 'lovely and round'])}. "
            f"Verdict: {r.choice(['buy it', 'rent it first', 'a good second-hand buy', 'worth it if you shoot this every week'])}. "
            f"Street price around ${r.randint(6, 32) * 100 - 1:,}.\n")
    if long:
        out.append("MEMBER SPOTLIGHTS\n")
        for name, suburb, genre in MEMBERS:
            out.append(
                f"{name} lives in {suburb} and has been a member since {r.randint(2009, 2023)}. {name.split()[0]} shoots mostly "
                f"{genre}, and this year is working on a project about {r.choice(['the last milk bars', 'people who work at night', 'the river in flood', 'suburban pools', 'bowls clubs', 'the western suburbs at dawn', 'market traders', 'the old railway lines'])}. "
                f"Asked for one tip for new members, {name.split()[0]} said: '{r.choice(['Print your work. A screen lies to you.', 'Shoot the same place fifty times.', 'Join the editing nights - you learn more from critique than from gear.', 'Learn to see light before you learn your camera.', 'Carry a camera every day, even a phone.', 'Talk to people. Most of them say yes.'])}' "
                f"You can see {name.split()[0]}'s work at the {r.choice(['June', 'July', 'August'])} print night.\n")
    out.append("MONTHLY COMPETITION RESULTS - SET SUBJECT 'REFLECTIONS'\n")
    entries = []
    for k in range(40 if long else 10):
        who = r.choice(MEMBERS)[0] if r.random() < 0.4 else f"{r.choice(['Anna', 'Ben', 'Chris', 'Dina', 'Eli', 'Faye', 'Gus', 'Hana', 'Ivan', 'Jo'])} {r.choice(['Ng', 'Boyd', 'Costa', 'Reid', 'Shah', 'Lowe', 'Park', 'Quinn'])}"
        entries.append((round(r.uniform(11, 15), 1), who, r.choice(["Puddle, Hosier Lane", "Window, Flinders St", "Lake Wendouree", "Shopfront, Sydney Rd", "Tram glass", "Still water, Studley Park", "Mirror, op shop", "Wet bluestone"])))
    for score, who, title in sorted(entries, reverse=True):
        out.append(f"  {score:>4}  {who:<22} {title}")
    out.append("")
    if long:
        out.append("CLASSIFIEDS (members only - deal directly with the seller)\n")
        items = ["Manfrotto 055 tripod with 3-way head", "Peak Design Everyday Backpack 20L", "Godox V1 flash (Sony)", "Canon EF 70-200 f/4L IS",
                 "Nikon D750 body, 62k shutter", "Lee 100mm filter kit", "Fujifilm X-T3 body", "Sekonic L-308X light meter",
                 "Epson P700 printer", "Lightroom presets bundle (honest!)", "Elinchrom D-Lite RX 4 kit", "Sony FE 28-60 kit lens",
                 "Pelican 1510 case", "Wacom Intuos Pro M", "Calibrite Display Pro", "Darkroom enlarger, Durst M605"]
        for k in range(90):
            it = r.choice(items)
            out.append(f"FOR SALE: {it}. {r.choice(['Excellent condition', 'Good condition, some wear', 'As new, boxed', 'Works perfectly, cosmetic marks'])}. "
                       f"${r.randint(4, 90) * 10}. Pick up {r.choice(['Preston', 'Footscray', 'Camberwell', 'Brunswick', 'Geelong', 'Frankston', 'Carlton'])} "
                       f"or post at cost. Contact {r.choice(MEMBERS)[0].split()[0].lower()}{r.randint(1, 99)}@members.mpc.org.au (ref C{k + 101}).")
        out.append("")
        out.append("TECHNICAL CORNER: READER QUESTIONS\n")
        qa = [("How often should I calibrate my monitor?", "Once a month for serious printing, every three months otherwise. Calibrate after the monitor has been on for half an hour."),
              ("Is it worth shooting RAW plus JPEG?", "Only if you need instant JPEGs for a client or for social media. Otherwise RAW alone saves card space."),
              ("What's the best way to back up on the road?", "Two copies before you format a card: the laptop and a portable SSD, kept in different bags."),
              ("Why do my prints look darker than the screen?", "Your screen is probably too bright. Set it to 100-120 cd/m2 for print work and use soft proofing."),
              ("Should I buy a drone for real estate work?", "Under 250 g you can fly in the excluded category, but you still need to follow the CASA rules and the venue's rules."),
              ("How do I stop rain spots on the front element?", "A lens hood and a microfibre cloth in a zip bag. Keep the cloth dry."),
              ("What shutter speed for panning trams?", "Start at 1/30 s and work down to 1/8 s. Follow through after the shutter closes.")]
        for q, a in qa:
            out.append(f"Q: {q}\nA: {a} {r.choice(['Several members agreed at the last editing night.', 'Thanks to Mei for this one.', 'Your mileage may vary.', 'Send us your own results.'])}\n")
        out.append("FROM THE ARCHIVE: 25 YEARS AGO\n")
        for k in range(6):
            out.append(f"In {r.choice(['May', 'June', 'July'])} 2000 the club {r.choice(['held its first colour slide night', 'went to the Grampians by bus', 'moved its meetings to the Fitzroy Town Hall', 'ran a darkroom weekend in Daylesford', 'printed its first newsletter on a photocopier', 'welcomed its 200th member'])}. "
                       f"{r.choice(['Some of the prints from that night still hang in the club rooms.', 'Three of the people there are still members.', 'The newsletter cost 40 cents to post.', 'It rained the whole weekend.'])}\n")
    return "\n".join(out)


def newsletter_tail_may() -> str:
    return """EVENTS CALENDAR - JUNE

- Tuesday 3 June, 7:30 pm: editing night at the club rooms, 41 Wellington St, Collingwood. Theme: black and white conversions.
- Saturday 14 June, 10 am: print sale and swap meet, club rooms.
- Saturday 21 June: winter solstice photowalk through Fitzroy. Meet at 9 am at the Rose Street Artists' Market entrance;
  we finish around 11:30 at Brunswick Street with coffee. Free for members, $10 for guests. Leader: Aroha Williams.
- Wednesday 25 June, 7 pm: guest talk by documentary photographer Lena Sorensen (online and in person).

AWARDS CORNER

The Melbourne Photography Awards have had a rough month: their entry website went down for most of the week of
12 May. The organisers have told us the closing date for entries is now extended to 11:59 pm Sunday 13 July 2025
(it was 29 June), and the early-bird price of $25 per image will now run until 15 June. Finalists are still due to
be announced on 8 August. Good luck to everyone entering - the Wedding and Documentary categories had a lot of
members among last year's finalists.

MEMBER PERKS

ProLab in Collingwood is giving members 15% off all prints and framing over winter: use the code MPC15-WINTER at
checkout or show your membership card at the counter, until 31 August 2025. (The autumn code MPC10-AUTUMN has
now expired.) Camera Clinic Richmond still gives members a free sensor clean with any service.

That's it for May. See you in the fog.

Karen Liddell
Editor, Melbourne Photo Collective

You are receiving this because you are a member of the Melbourne Photo Collective.
Unsubscribe or change your preferences: https://melbournephotocollective.org.au/prefs
"""


def newsletter_tail_april() -> str:
    return """EVENTS CALENDAR - MAY

- Tuesday 6 May, 7:30 pm: editing night at the club rooms. Theme: skin tones.
- Saturday 17 May: autumn photowalk along the Maribyrnong in Footscray. Meet at 8:30 am at the Footscray Wharf.
- Thursday 22 May, 7 pm: panel on pricing your work, with three working members.

AWARDS CORNER

Entries for the Melbourne Photography Awards close on Sunday 29 June at 11:59 pm. Early-bird pricing ($25 per image)
ends on 31 May, so get your files in during May if you can.

MEMBER PERKS

ProLab: 10% off prints with the code MPC10-AUTUMN until 31 May.

Karen Liddell
Editor
"""


def build_saved_mail() -> None:
    body = newsletter_body("May 2025", rng("nl-may"), True) + "\n" + newsletter_tail_may()
    eml("Mail/Saved/Melbourne Photo Collective - May 2025 digest.eml", frm=MPC, to=[TAHLIA], subject="MPC Digest - May 2025: winter light, gear notes, June events",
        date="2025-05-28 18:00", body=body, msgid="mpc-digest-2025-05@melbournephotocollective.org.au")
    FACTS["nl_may_len"] = len(body)
    body = newsletter_body("April 2025", rng("nl-apr"), False) + "\n" + newsletter_tail_april()
    eml("Mail/Saved/Melbourne Photo Collective - April 2025 digest.eml", frm=MPC, to=[TAHLIA], subject="MPC Digest - April 2025",
        date="2025-04-29 18:00", body=body, msgid="mpc-digest-2025-04@melbournephotocollective.org.au")
    eml("Mail/Saved/Spirit of Tasmania - your voyage.eml", frm=addr("Spirit of Tasmania", "bookings@spiritoftasmania.com.au"), to=[TAHLIA_P],
        subject="Your voyage is coming up - SOT7734218", date="2025-04-10 09:00", msgid="sot-7734218-rem@spiritoftasmania.com.au",
        body="""Hi Tahlia,

Your sailing from Geelong to Devonport departs on Thursday 17 April at 7:30 pm. Check-in opens 2 hours before and
closes 60 minutes before departure. With a pet on board, please go to the pet check-in lane first.

Biosecurity: you can't take fruit, vegetables, plants, honey or soil into Tasmania.

Spirit of Tasmania
""")
    eml("Mail/Saved/VicRoads rego reminder.eml", frm=addr("VicRoads", "noreply@vicroads.vic.gov.au"), to=[TAHLIA_P],
        subject="Your registration for 1XR 7QD is due soon", date="2025-06-02 06:05", msgid="vr-1xr7qd-2025@vicroads.vic.gov.au",
        body="Your registration for 1XR 7QD expires on 18/07/2025. Renew online at vicroads.vic.gov.au.\n")
    eml("Mail/Saved/Pixieset payout.eml", frm=addr("Pixieset", "payouts@pixieset.com"), to=[TAHLIA],
        subject="Payout sent: AUD 3,941.80", date="2025-05-09 04:12", msgid="pxs-po-88127@pixieset.com",
        body="""Your payout PO-88127 of AUD 3,941.80 has been sent to your bank account ending 6604.
It should arrive in 1-3 business days.

Store: Autumn minis - Edinburgh Gardens (3-4 May 2025)
Orders: 14 sessions x AUD 290.00 = AUD 4,060.00
Processing fees: AUD 118.20
""")
    eml("Mail/Saved/ProLab order ready.eml", frm=addr("ProLab Collingwood", "orders@prolab.com.au"), to=[TAHLIA],
        subject="Order PL-55120 is ready for pick-up", date="2025-05-20 15:40", msgid="pl-55120@prolab.com.au",
        body="Hi Tahlia,\n\nYour order PL-55120 (28 x 8x10 lustre prints, mini sessions) is ready at 77 Smith St, Collingwood. Total paid $156.00.\n\nProLab\n")
    eml("Mail/Saved/Aussie Broadband maintenance.eml", frm=addr("Aussie Broadband", "noreply@aussiebroadband.com.au"), to=[TAHLIA_P],
        subject="Planned NBN maintenance in Brunswick", date="2025-03-18 10:00", msgid="abb-maint-0318@aussiebroadband.com.au",
        body="NBN Co will carry out maintenance in your area on Tuesday 25 March between midnight and 6 am.\n")
    eml("Mail/Saved/Lens and Shutter - claim guide.eml", frm=addr("Lens & Shutter Insurance", "policies@lensandshutter.com.au"), to=[TAHLIA],
        subject="How to make a claim", date="2025-02-03 11:00", msgid="ls-claim-guide-2025@lensandshutter.com.au",
        body="To make a claim, call 1300 552 100 within 30 days of the loss, with a police report number for any theft.\n")


# ----------------------------------------------------------------------------------------
# Obsidian vault: daily notes with YAML front matter, [[wikilinks]] and #tags, plus pages
# ----------------------------------------------------------------------------------------

def fm(**kw) -> str:
    lines = ["---"]
    for k, v in kw.items():
        if isinstance(v, list):
            lines.append(f"{k}: [{', '.join(v)}]")
        else:
            lines.append(f"{k}: {v}")
    return "\n".join(lines) + "\n---\n"


DAILY = {
    "2025-02-10": ("26C, humid", ["daily", "admin"], """## Admin block
- Reconciled January in the bank feed - all H&R paid except nothing outstanding :)
- Hartley prep: charged all 6 batteries, packed the grey backdrop (Savage Thunder Grey) and both AD200s.
- Booked parking near 530 Collins for Wednesday - see screenshot.

## Notes
[[Biscuit]] limping a bit on the back left after the creek - watch it.
"""),
    "2025-02-12": ("31C", ["daily", "shoot"], """## Hartley Legal headshots
- Flat white at Tinker & Loaf at 7:15, on Collins St by 8:00.
- 18 people in 4 hours. Two looks each (grey backdrop + window light in boardroom 2).
- 85mm f/1.8 at f/4, 1/200, ISO 200 for the backdrop set - my go-to for headshots, the 24-70 at 70 is never quite as nice.
- Greg Hartley and Anika Shah were in court -> reshoot to arrange. #followup
See [[Clients/Hartley Legal]].
"""),
    "2025-02-18": ("29C", ["daily", "wedding"], """## Call with Linh
Recorded a voice memo straight after (Recordings). Asked her to put numbers + timeline in an e-mail.
- [[Clients/Nguyen-Walsh wedding]]: first look moved, family formals order sorted.
"""),
    "2025-03-06": ("22C", ["daily", "shoot"], """## Hartley reshoot
Greg + Anika done by 9:40. Same grey backdrop setup, 85mm again. Added to the gallery tonight.
"""),
    "2025-03-11": ("25C", ["daily", "biscuit"], """## Vet
[[Biscuit]] C5 booster done, and an ear infection on the left side (explains the head shaking). $186.50.
Drops twice a day - details in the voice memo. Recheck 25 March.
"""),
    "2025-03-14": ("27C", ["daily", "wedding"], """## Wedding prep
- Bought 2 more 128GB cards at Lenspoint (receipt photo in camera roll) - dual slots for everything tomorrow.
- Batteries, flashes, sparkler-exit settings noted. Sam confirmed 2 pm.
- Early night. #wedding
"""),
    "2025-03-15": ("23C, perfect", ["daily", "wedding"], """## Nguyen-Walsh wedding
Done. 4,812 frames (me) + 2,260 (Sam). The sparkler exit went off at 9:15 on the dot.
Backed up to laptop + NAS before bed, B2 upload running overnight. See [[Workflows/Backup routine]].
"""),
    "2025-03-22": ("19C", ["daily", "parkrun"], """## parkrun
25:38 at Merri Creek - 47th. Legs heavy from the wedding week. Log: [[Personal/Parkrun log]].
Afternoon: culled the wedding (first pass, 7,072 -> 1,380).
"""),
    "2025-03-27": ("21C", ["daily", "shoot"], """## Little Ochre menu shoot
7 am start. Shot in the order on Marco's whiteboard (photo in camera roll). Window light gone by 10:30, as predicted.
Coffee from Tinker & Loaf first, obviously, even though I was going to a cafe.
"""),
    "2025-04-01": ("20C", ["daily", "admin"], """## Admin
- Invoiced H&R for March (first business day, as always). 8 shoots, 2 twilights.
- Q3 BAS workings started. #admin
"""),
    "2025-04-03": ("18C", ["daily", "car"], """## Car service
Mike's Auto Care, Coburg - $398. Mechanic's notes in a voice memo.
"""),
    "2025-04-16": ("17C", ["daily", "travel"], """## Packing for Tassie
[[Personal/Tasmania Easter trip]]. Biscuit's blanket, clip-on bowl, lead. No fruit. Cameras: A7 III + 35 only!
"""),
    "2025-04-26": ("14C, showers", ["daily", "wedding"], """## Grace & Marco, Daylesford
Rain plan not needed in the end - the jetty lawn stayed dry until 4. Nonna + eleven grandkids photo done first.
"""),
    "2025-05-04": ("16C", ["daily", "shoot"], """## Autumn minis, day 2
Edinburgh Gardens, 7 families today (14 over the weekend). Leaves perfect. Prints ordered from ProLab.
"""),
    "2025-05-08": ("15C", ["daily"], """## Dentist + idea
Dentist at 10 (gap $96.50). Walking home with Biscuit had the idea for the exhibition - memo recorded.
[[Ideas/Northside Light]]
"""),
    "2025-05-22": ("13C", ["daily", "home"], """## Water off
No water 8 am - 1 pm (plumbers on the main valve - note from the agent on the door). Showered at Brunswick Baths after
the walk. Edited Saltbush mood board at the library.
"""),
    "2025-05-25": ("12C", ["daily", "family"], """## Bendigo
Lunch at Mum's (lamb). Fixed the printer (again - it was the Wi-Fi). Biscuit and Rusty ran the yard. Fuel at Kyneton.
[[Personal/Mum - Bendigo visits]]
"""),
    "2025-05-31": ("11C, foggy", ["daily", "parkrun"], """## PB!
24:41 at parkrun. Voice memo on the walk home. Next target: sub-24 by the end of July.
"""),
    "2025-06-05": ("12C", ["daily", "shoot"], """## Saltbush Yoga
Studio + 9:30 class. Mel very happy. Soft window light all morning.
"""),
    "2025-06-12": ("10C", ["daily", "pottery"], """## Pots!
Picked up the glazed pieces from shelf C - the celadon bowls are the best thing I've made. [[Personal/Pottery]]
"""),
    "2025-06-16": ("12C", ["daily", "admin"], """## Tax time
Memo recorded with the tax to-dos. Started the home-office hours log.
"""),
    "2025-06-17": ("11C, drizzle", ["daily", "admin"], """## Tuesday
- Culled the Saltbush gallery: 212 -> 64, edited 20.
- Paid the car rego for 12 months ($932.30) so it's done before July.
- Booked Biscuit's wash and nail trim at Pawsome Coburg for Saturday 28 June, 9 am.
- Signed the new lease in the portal ($610/wk from 1 July).
#admin
"""),
    "2025-06-19": ("13C", ["daily"], """## Thursday
Dev on nights from tonight. Delivered Saltbush gallery. Long walk with [[Biscuit]] along the creek.
"""),
}


def build_vault() -> None:
    V = "Vault/"
    put(V + ".obsidian/app.json", json.dumps({"newFileLocation": "folder", "newFileFolderPath": "Inbox",
                                              "attachmentFolderPath": "attachments", "alwaysUpdateLinks": True,
                                              "showLineNumber": False}, indent=2) + "\n", "2024-08-01 20:00")
    put(V + ".obsidian/daily-notes.json", json.dumps({"folder": "Daily", "format": "YYYY-MM-DD", "template": "Templates/Daily note"}, indent=2) + "\n",
        "2024-08-01 20:05")
    for d, (weather, tags, body) in DAILY.items():
        dd = day(d)
        text = fm(date=d, weather=weather, tags=tags) + f"# {dd.strftime('%A')} {dd.day} {dd.strftime('%B %Y')}\n\n" + body
        put(V + f"Daily/{d}.md", text, f"{d} 21:{(dd.day * 7) % 60:02d}")

    put(V + "Home.md", fm(tags=["index"]) + """# Home

- Work: [[Clients/Harcourt & Rowe]] · [[Clients/Nguyen-Walsh wedding]] · [[Clients/Hartley Legal]] · [[Clients/Grace & Marco wedding]]
- How I work: [[Workflows/Wedding edit workflow]] · [[Workflows/Backup routine]] · [[Workflows/Monthly admin]]
- Gear: [[Gear/Lens wishlist]] · [[Gear/Wedding kit list]]
- Life: [[Biscuit]] · [[Personal/Parkrun log]] · [[Personal/Pottery]] · [[Personal/Mum - Bendigo visits]] · [[Personal/Tasmania Easter trip]]
- Ideas: [[Ideas/Northside Light]]
""", "2025-05-09 21:00")
    put(V + "Templates/Daily note.md", fm(date="{{date}}", weather="", tags=["daily"]) + "# {{date:dddd D MMMM YYYY}}\n\n## Notes\n\n## Tomorrow\n", "2024-08-01 20:10")

    put(V + "Clients/Harcourt & Rowe.md", fm(type="client", contact="Priya Raman", since="2024-11-01", tags=["client", "property"]) + """# Harcourt & Rowe Real Estate (Brunswick)

Contact: Priya Raman (marketing), 212 Sydney Road. Bookings by e-mail, usually 2-4 days ahead.

## The deal (from Oct 2024)
- $220 + GST standard shoot, up to 25 images; twilight +$90 + GST
- Delivery to Dropbox by 9 am next business day
- One invoice a month, 14-day terms -> they pay around the 15th-17th

## Brief
- Wide interiors at 16-18mm, verticals straight, lights ON, blinds half open
- No people, no cars in the driveway, toilet seats down (!)
- Twilights: from April arrive 45 min before sunset (was 30)

#client #property
""", "2025-04-10 20:30")
    put(V + "Clients/Nguyen-Walsh wedding.md", fm(type="wedding", date="2025-03-15", venue="Coldstream Ridge Winery", tags=["client", "wedding"]) + """# Linh Nguyen & Ben Walsh - 15/03/2025

- Venue: Coldstream Ridge Winery (ceremony lawn terrace, reception Barrel Hall)
- Celebrant: Rosa Tran
- Wrangler for formals: Khoa (Linh's brother)
- Band: The Velvet Lanes - Sam eats with them
- Package: Collection B+ ($4,850), 9 hours, Sam 2-8 pm. Quote history in Business/Quotes.
- Questionnaire sent 17/01 (8 weeks out). Timeline call 18/02.
- Gallery delivered 22/04 (642 images). Album: waiting on favourites.

#wedding
""", "2025-04-22 19:00")
    put(V + "Clients/Hartley Legal.md", fm(type="client", contact="Fiona Mercer", tags=["client", "headshots"]) + """# Hartley Legal - headshots

Level 9, 530 Collins St. Fiona Mercer (office manager).

## Setup that worked
- Savage Thunder Grey backdrop, key = AD200 in the 90 cm octa camera left, fill = white foam board
- 85mm f/1.8 at f/4, 1/200 s, ISO 200. Always the 85 for headshots - flattering, and I can stand far enough back to chat.
- Second look: window light in boardroom 2, 24-70 at 50.
- Tether to the laptop so people can see themselves.

Reshoot for Greg Hartley + Anika Shah on 6 March. #headshots
""", "2025-03-06 20:00")
    put(V + "Clients/Grace & Marco wedding.md", fm(type="wedding", date="2025-04-26", venue="Wombat Hill Estate, Daylesford", tags=["client", "wedding"]) + """# Grace Liu & Marco Bellini - 26/04/2025

- Wombat Hill Estate, Daylesford. Ceremony 2 pm on the jetty lawn; wet weather: Boathouse room.
- 86 guests. Nonna + 11 grandkids photo first in formals.
- Questionnaire sent 28/02 (8 weeks). Sam second shooting 1-7 pm.
#wedding
""", "2025-04-27 10:00")

    put(V + "Workflows/Wedding edit workflow.md", fm(tags=["workflow"]) + """# Wedding edit workflow

1. Ingest the same night: run `Business/scripts/rename_raws.py` (renames to date_client_sequence) onto the working SSD.
2. Backups before anything else - see [[Workflows/Backup routine]]. Cards are not formatted until there are 3 copies.
3. Cull in Photo Mechanic: first pass ~1 in 5, second pass to the final count (weddings end up 550-700).
4. Edit in Lightroom Classic with my "TB Warm Film v3" preset as the starting point, then per-scene tweaks.
5. Sneak peek: 30 images within 72 hours.
6. Export with the "Web gallery" preset (see export_presets.json and the screen recording of the export dialog).
7. Upload to Pixieset; gallery password = couple's short name + wedding date as MMDD (e.g. nw-0315).
8. Deliver within 6 weeks; ask them to heart their album picks.

#workflow #wedding
""", "2025-04-22 21:10")
    put(V + "Workflows/Backup routine.md", fm(tags=["workflow", "backup"]) + """# Backup routine (3-2-1)

- Copy 1: working SSD in the MacBook (ingested the night of the shoot)
- Copy 2: Synology NAS "kookaburra" in the hall cupboard - `backup.sh` mirrors the SSD every night at 1:00 am
- Copy 3: Backblaze B2 bucket `tb-photo-archive` - rclone, run by the same script after the NAS sync
- Cards stay unformatted until all three copies exist, and are kept for 2 weeks after a gallery is delivered.
- Once a quarter: test a restore of a random job from B2.

#backup
""", "2025-01-19 16:00")
    put(V + "Workflows/Monthly admin.md", fm(tags=["workflow", "admin"]) + """# Admin rhythm

- Monday mornings 9:00-11:30: admin block (bank feed, replies, bookings). Calendar has it.
- First business day of the month: invoice Harcourt & Rowe for all of last month's shoots.
- Quarterly BAS: workings to Rhonda around the 3rd week after the quarter ends; she lodges as agent (later due date).
- Put 30% of every payment in the tax sinking fund (income tax - GST is separate).
#admin
""", "2025-02-03 10:30")

    put(V + "Gear/Lens wishlist.md", fm(tags=["gear"]) + """# Lens wishlist

1. **Sony FE 35mm f/1.4 GM** - about $2,099. Lighter than the Sigma, faster AF for receptions. Saving for it (budget sheet).
2. Sony FE 20mm f/1.8 G - $1,249, for property interiors without the wide zoom's distortion.
3. Sony FE 90mm f/2.8 Macro G - $1,599, rings and details. Maybe rent first.

Not buying: another body (A7 III backup is fine).
""", "2025-05-13 22:00")
    put(V + "Gear/Wedding kit list.md", fm(tags=["gear", "wedding"]) + """# Wedding kit list

- A7 IV (main) + A7 III (backup / Sam)
- 24-70 GM II, 85 f/1.8, 35 Sigma, 70-200 f/4
- 2x AD200Pro + V1 on camera, 2 stands, octa, umbrella
- 8 batteries, 6 cards (128GB), card wallet
- Sparkler-exit settings: 1/125 s, f/2.8, ISO 3200, flash 1/16 bounce
- Snacks, water, umbrella, spare shoes
""", "2025-03-14 21:00")

    put(V + "Biscuit.md", fm(tags=["dog"], born="2021-08-04") + """# Biscuit

Red kelpie, born 04/08/2021. Microchip 956000012840377. Vet: Brunswick Vet Clinic (Dr Sunita Rao).

## Walks
- Every morning 6:15-7:00: Merri Creek trail from Albion St down to CERES and back, off lead at Kirkdale Street Park.
- Evenings: a lap of the block after dinner. Dev does the morning walk on his days off.

## Health
- C5 due 11/03/2026. Ear infection March 2025 (left).
- Pet insurance: PetSure $48.20/month.
- Grooming at Pawsome Coburg every ~6 weeks.
#dog
""", "2025-06-17 20:30")
    put(V + "Personal/Parkrun log.md", fm(tags=["parkrun", "running"]) + "# Parkrun log - Merri Creek\n\nSaturdays 8:00 am. Goal for 2025: sub-25 (done 3 May!), then sub-24 by end of July.\n\n| Date | Event | Time | Pos |\n|---|---|---|---|\n"
        + "".join(f"| {au_date(day(d))} | #{ev} | {t} | {pos} |\n" for d, ev, t, pos in PARKRUN)
        + "\nMissed: 25 Jan (long weekend), 15 Mar (wedding), 19 Apr (Tassie), 26 Apr (wedding), 7 Jun (volunteered - timekeeper).\n",
        "2025-06-14 10:30")
    put(V + "Personal/Pottery.md", fm(tags=["pottery"]) + """# Pottery - Clay Corner Studio, Northcote

- Wheel throwing 2, Wednesdays 6:30-8:30 pm, with Hiroko. Term 2: 30 April - 18 June (no class 4 June; make-up 25 June).
- $420 a term. Re-enrol when term 3 opens (23 June).
- Glazes I like: celadon (blue-green), tenmoku on the outside of mugs.
- Goal: a set of 4 matching bowls. Trimming is still my weak spot.
""", "2025-06-12 21:15")
    put(V + "Personal/Mum - Bendigo visits.md", fm(tags=["family"]) + """# Mum in Bendigo

Last Sunday of the month I drive up for lunch - leave ~8:30, Calder Fwy, about 2 hours; home by 5.
Fuel at Kyneton on the way back. Biscuit comes (Rusty = Mum's old cattle dog).
Mum's jobs list: printer, gutters (ask Caitlin's Jono), the Telstra bill.
April was the 27th (after Tassie).
""", "2025-05-25 20:10")
    put(V + "Personal/Tasmania Easter trip.md", fm(tags=["travel"]) + """# Tassie, Easter 2025

- Spirit of Tasmania from Geelong (NOT Port Melbourne any more), Thu 17 April night sailing; back Thu 24 April day sailing.
- Binalong Bay shack 18-23 April, then a cabin at Mersey Bluff.
- Biscuit in the on-deck kennel: own blanket, clip-on bowl.
- Total so far: ferry $1,146 + shack $1,240.
""", "2025-04-16 20:00")
    put(V + "Ideas/Northside Light.md", fm(tags=["idea", "exhibition"]) + """# Northside Light

Sunrise series - Brunswick/Coburg laneways, shopfronts, Merri Creek. First 40 min of light.
Application to Sydney Road Project Space ('Local Ground', 4-27 Sept). Due 30 May - sent!
Statement: Documents/Exhibition. Costings: 10 prints framed ~ $2,990.
""", "2025-05-30 22:20")


# ----------------------------------------------------------------------------------------
# Calendars
# ----------------------------------------------------------------------------------------

def build_calendars() -> None:
    ev = []

    def E(uid, summary, start, end, **kw):
        ev.append(dict(uid=f"{uid}@tahliabrennan.com.au", summary=summary, start=start, end=end, **kw))

    E("parkrun-weekly", "parkrun - Merri Creek", "2025-01-04 07:45", "2025-01-04 09:00", rrule="FREQ=WEEKLY;BYDAY=SA",
      location="Merri Creek trail, Coburg Lake end", exdates=["2025-03-15 07:45", "2025-04-19 07:45", "2025-04-26 07:45"])
    E("admin-block", "Admin block", "2025-01-06 09:00", "2025-01-06 11:30", rrule="FREQ=WEEKLY;BYDAY=MO",
      description="Bank feed, e-mail, bookings, quotes. No shoots before 11:30 on Mondays.")
    E("invoice-hr", "Invoice Harcourt & Rowe (last month's shoots)", "2025-02-03 09:00", "2025-02-03 09:30",
      rrule="FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1")
    E("bendigo-mum", "Lunch at Mum's - Bendigo", "2025-01-26 11:00", "2025-01-26 15:00", rrule="FREQ=MONTHLY;BYDAY=-1SU",
      location="Bendigo", description="Leave 8:30. Take Biscuit.")
    E("pottery-t2", "Pottery - Wheel 2 (Clay Corner)", "2025-04-30 18:30", "2025-04-30 20:30",
      rrule="FREQ=WEEKLY;BYDAY=WE;UNTIL=20250618T103000Z", exdates=["2025-06-04 18:30"], location="Clay Corner Studio, 19 Beavers Rd, Northcote")
    E("pottery-makeup", "Pottery make-up class", "2025-06-25 18:30", "2025-06-25 20:30", location="Clay Corner Studio")
    E("pottery-glaze", "Glaze day", "2025-06-07 10:00", "2025-06-07 14:00", location="Clay Corner Studio")
    E("pots-pickup", "Pick up glazed pots", "2025-06-12 16:30", "2025-06-12 17:00", location="Clay Corner Studio")
    E("hartley-1", "Hartley Legal headshots", "2025-02-12 08:00", "2025-02-12 12:30", location="Level 9, 530 Collins St, Melbourne")
    E("hartley-2", "Hartley reshoot - Greg + Anika", "2025-03-06 09:00", "2025-03-06 10:00", location="Level 9, 530 Collins St, Melbourne")
    E("bba-party", "Sydney Rd Street Party - BBA photos", "2025-03-02 12:00", "2025-03-02 16:00", location="Sydney Road, Brunswick")
    E("nw-wedding", "WEDDING - Linh & Ben", "2025-03-15 12:15", "2025-03-15 21:30", location="Coldstream Ridge Winery, Coldstream",
      description="Sam 2-8 pm. Sparkler exit 9:15.")
    E("gm-walkthrough", "Venue walkthrough - Wombat Hill Estate", "2025-03-29 13:00", "2025-03-29 14:00", location="Daylesford")
    E("gm-wedding", "WEDDING - Grace & Marco", "2025-04-26 11:00", "2025-04-26 20:00", location="Wombat Hill Estate, Daylesford")
    E("ochre", "Little Ochre menu shoot", "2025-03-27 07:00", "2025-03-27 10:30", location="311 Lygon St, Brunswick East")
    E("minis-1", "Autumn minis - Edinburgh Gardens", "2025-05-03 08:30", "2025-05-03 12:00", location="Edinburgh Gardens, Fitzroy North")
    E("minis-2", "Autumn minis - Edinburgh Gardens", "2025-05-04 08:30", "2025-05-04 12:00", location="Edinburgh Gardens, Fitzroy North")
    E("saltbush", "Saltbush Yoga brand shoot", "2025-06-05 08:00", "2025-06-05 11:00", location="5 Munro St, Coburg")
    E("vet-1", "Biscuit - vet (C5 booster)", "2025-03-11 17:00", "2025-03-11 17:30", location="Brunswick Vet Clinic")
    E("vet-2", "Biscuit - ear recheck", "2025-03-25 17:40", "2025-03-25 18:00", location="Brunswick Vet Clinic")
    E("groom", "Biscuit - wash + nails (Pawsome Coburg)", "2025-06-28 09:00", "2025-06-28 10:00")
    E("dentist", "Dentist - Dr Kowalczyk", "2025-05-08 10:00", "2025-05-08 10:45", location="Brunswick Dental Group, 402 Sydney Rd")
    E("car-service", "Car service - Mike's Auto Care", "2025-04-03 08:00", "2025-04-03 16:00", location="Coburg")
    E("tassie", "Tasmania", "2025-04-17", "2025-04-25", allday=True)
    E("bas-q3", "BAS Q3 payment due (via Rhonda)", "2025-05-26", "2025-05-27", allday=True)
    E("srps", "Sydney Road Project Space application due", "2025-05-30", "2025-05-31", allday=True)
    E("mpa-close", "MPA entries close", "2025-06-29", "2025-06-30", allday=True)
    for s in HR_SHOOTS:
        if s["date"].year == 2025:
            h, m = map(int, s["time"].split(":"))
            end = f"{h + 1:02d}:{m + 30:02d}" if m < 30 else f"{h + 2:02d}:{m - 30:02d}"
            E(f"hr-{s['n']}", f"H&R - {s['address']}", f"{s['date'].isoformat()} {s['time']}", f"{s['date'].isoformat()} {end}",
              location=s["address"])
    ics_calendar("Calendar/Tahlia.ics", "Tahlia", ev, "2025-06-19 21:00")

    # Dev's roster
    r = rng("roster")
    dev = []
    d = day("2025-03-03")
    fixed = {day("2025-06-09"): "L", day("2025-04-25"): None}
    for k in range(4):
        fixed[day("2025-04-28") + dt.timedelta(days=k)] = "N"
    for k in range(3):
        fixed[day("2025-06-19") + dt.timedelta(days=k)] = "N"
    leave = {day("2025-04-17") + dt.timedelta(days=k) for k in range(11)}
    shifts = {"E": ("Early", "07:00", "15:30"), "L": ("Late", "13:00", "21:30"), "N": ("Night", "21:00", "07:30")}
    while d <= day("2025-06-29"):
        if d in fixed:
            s = fixed[d]
        elif d in leave:
            s = None
        else:
            s = r.choice(["E", "E", "L", "L", None, None, "N"]) if d.weekday() < 5 else r.choice(["E", "L", None, None, None])
        if s:
            name, a, b = shifts[s]
            endd = d + dt.timedelta(days=1) if s == "N" else d
            dev.append(dict(uid=f"dev-{d.isoformat()}@roster.parkvillegeneral.org.au", summary=f"Dev - {name} (ED)",
                            start=f"{d.isoformat()} {a}", end=f"{endd.isoformat()} {b}", location="Parkville General, Emergency"))
        d += dt.timedelta(days=1)
    dev.append(dict(uid="dev-leave-easter@roster.parkvillegeneral.org.au", summary="Dev - annual leave", start="2025-04-17", end="2025-04-28", allday=True))
    ics_calendar("Calendar/Dev roster.ics", "Dev roster (shared)", dev, "2025-06-15 08:00", desc="Dev's ED roster, shared from his phone")

    hol = [("New Year's Day", "2025-01-01"), ("Australia Day", "2025-01-27"), ("Labour Day", "2025-03-10"), ("Good Friday", "2025-04-18"),
           ("Saturday before Easter Sunday", "2025-04-19"), ("Easter Sunday", "2025-04-20"), ("Easter Monday", "2025-04-21"),
           ("ANZAC Day", "2025-04-25"), ("King's Birthday", "2025-06-09"), ("Friday before the AFL Grand Final", "2025-09-26"),
           ("Melbourne Cup", "2025-11-04"), ("Christmas Day", "2025-12-25"), ("Boxing Day", "2025-12-26")]
    ics_calendar("Calendar/Victorian public holidays 2025.ics", "Victorian public holidays 2025",
                 [dict(uid=f"vic-{d}@holidays.vic.gov.au", summary=n, start=d, end=(day(d) + dt.timedelta(days=1)).isoformat(), allday=True)
                  for n, d in hol], "2025-01-03 12:00", desc="Public holidays in Victoria, 2025")


# ----------------------------------------------------------------------------------------
# Pictures (PNG via ffmpeg drawtext): camera-roll photos with text, screenshots, job files
# ----------------------------------------------------------------------------------------

def T(text, x, y, size=26, **kw):
    return dict(text=text, x=x, y=y, size=size, **kw)


def build_pictures() -> None:
    CR = "Pictures/Camera Roll/"
    items = [T("LENSPOINT MELBOURNE", 150, 70, 34, bold=True), T("270 Elizabeth St, Melbourne VIC 3000", 120, 120, 20),
             T("ABN 71 118 402 559   Ph 03 9602 4410", 120, 150, 20), T("TAX INVOICE", 250, 200, 28, bold=True),
             T("14/03/2025  16:42   Reg 2   Staff: Jules", 110, 250, 20),
             T("SanDisk Extreme PRO 128GB SDXC", 80, 320, 22), T("   2 @ $79.00                       $158.00", 80, 352, 22),
             T("Lens cloth microfibre                 $12.95", 80, 400, 22),
             T("TOTAL                               $170.95", 80, 470, 26, bold=True),
             T("GST included                         $15.54", 80, 515, 22), T("EFTPOS DEBIT  ****6604  APPROVED", 80, 565, 22),
             T("Returns within 14 days with receipt", 120, 640, 18), T("Thank you for shopping at Lenspoint!", 110, 675, 20)]
    png_screenshot(CR + "IMG_2041.png", (720, 900), items, "2025-03-14 16:45", boxes=[(50, 30, 620, 700, "white")],
                   bg="0x6b5b4b", colour=True, tilt=-2.5)

    wb = ["THURS SHOOT ORDER  (7am!)", "1. Ricotta hotcakes", "2. Green shakshuka", "3. Chilli scrambled eggs", "4. Miso mushrooms",
          "5. Matcha latte  <- HERO for IG", "6. Banana bread", "7. Smashed pumpkin", "8. Brekkie roll",
          "LUNCH after 9:  katsu sando, pumpkin salad, fish tacos,", "reuben, soup of the day, affogato",
          "Window light til 10:30!!"]
    items = [T(t, 70, 60 + 62 * i, 30 if i else 36, bold=(i == 0), italic=(i > 0), color="0x1a3d8f" if i % 2 else "0x222222")
             for i, t in enumerate(wb)]
    png_screenshot(CR + "IMG_2047.png", (1100, 860), items, "2025-03-27 06:58", boxes=[(30, 30, 1040, 800, "0xf4f4f0")],
                   bg="0x9a9a9a", colour=True, tilt=1.5)

    items = [T("NOTICE - residents of 41 Hope St (units 1-6)", 60, 60, 28, bold=True), T("Water will be OFF", 60, 140, 40, bold=True),
             T("Thursday 22 May", 60, 210, 34, italic=True), T("8:00 am - 1:00 pm", 60, 260, 34, italic=True),
             T("Plumbers are replacing the main stop valve.", 60, 340, 26), T("Please fill a few jugs the night before.", 60, 380, 26),
             T("Sorry for the inconvenience - Barkly Property Group 03 9380 4410", 60, 450, 20)]
    png_screenshot(CR + "IMG_2058.png", (960, 560), items, "2025-05-19 18:22", boxes=[(30, 30, 900, 480, "0xfdfbe6")],
                   bg="0x4d5a63", colour=True, tilt=-1.2)

    items = [T("BRUNSWICK VET CLINIC   03 9386 2211", 40, 40, 22, bold=True), T("Patient: BISCUIT BRENNAN (canine)", 40, 90, 22),
             T("SUROLAN ear drops 15 mL", 40, 140, 26, bold=True), T("Apply 5 drops into the LEFT ear", 40, 190, 24),
             T("twice daily for 10 days.", 40, 225, 24), T("Massage base of ear after applying.", 40, 260, 22),
             T("Dr S Rao    11/03/2025    Qty 1", 40, 310, 20), T("FOR ANIMAL TREATMENT ONLY - KEEP OUT OF REACH OF CHILDREN", 40, 350, 16)]
    png_screenshot(CR + "IMG_2063.png", (760, 420), items, "2025-03-11 18:05", boxes=[(20, 20, 720, 370, "white")],
                   bg="0xc8b89a", colour=True, tilt=2.0)

    items = [T("SHELF C", 40, 30, 34, bold=True), T("Wed Wheel 2 - Tahlia B.", 40, 90, 28, italic=True),
             T("4 bowls - celadon", 40, 150, 28, italic=True), T("2 mugs - tenmoku outside / clear in", 40, 200, 28, italic=True),
             T("glaze fired 30/05", 40, 260, 24, italic=True)]
    png_screenshot(CR + "IMG_2071.png", (700, 330), items, "2025-06-12 16:48", boxes=[(15, 15, 670, 300, "0xe9dcc3")],
                   bg="0x5a4636", colour=True, tilt=-3.0)

    SS = "Pictures/Screenshots/"
    items = [T("9:41", 30, 20, 22, bold=True), T("CityPark", 30, 80, 34, bold=True), T("Booking confirmed", 30, 140, 28),
             T("Secure car park - 525 Collins St", 30, 210, 24), T("Entry via Flinders Lane", 30, 245, 22),
             T("Wed 12 Feb 2025", 30, 310, 24, bold=True), T("Entry from 7:45 am   Exit by 1:00 pm", 30, 345, 22),
             T("Level B2 - any bay", 30, 395, 22), T("Early bird rate  $32.00", 30, 445, 24, bold=True), T("Booking ref CP-99420", 30, 495, 20)]
    png_screenshot(SS + "Screenshot 2025-02-10 at 8.14.20 pm.png", (540, 620), items, "2025-02-10 20:14")

    items = [T("< Caitlin", 20, 20, 24, bold=True), T("Mia's party is Sat 10 May, 11 till 1", 40, 110, 22),
             T("at the Eastern Beach playground", 40, 140, 22), T("(the one near the pool, Geelong)", 40, 170, 22),
             T("She wants a unicorn cake lol", 40, 220, 22), T("Can you bring the big camera?? x", 40, 250, 22),
             T("Of course! Biscuit's invited too right", 140, 320, 22), T("Delivered", 420, 360, 16)]
    png_screenshot(SS + "Screenshot 2025-04-09 at 8.41.17 pm.png", (600, 420), items, "2025-04-09 20:41",
                   boxes=[(30, 95, 430, 190, "0xdddddd"), (130, 305, 440, 45, "0xbbbbbb")])

    items = [T("Spirit of Tasmania", 30, 30, 30, bold=True), T("BOARDING PASS", 30, 80, 24), T("Geelong > Devonport", 30, 140, 28, bold=True),
             T("Thu 17 Apr 2025   Departs 19:30", 30, 190, 22), T("Booking SOT7734218", 30, 235, 22),
             T("Cabin 8117 (Deck 8) - 2 berth inside", 30, 285, 24, bold=True), T("Vehicle lane 4", 30, 335, 22),
             T("Pet check-in: lane P (kennel 23, deck 5)", 30, 375, 22), T("Check-in closes 18:30", 30, 425, 22)]
    png_screenshot(SS + "Screenshot 2025-04-17 at 5.02.11 pm.png", (600, 480), items, "2025-04-17 17:02")

    items = [T("Pixieset  -  Collections", 30, 25, 26, bold=True), T("Nguyen-Walsh Wedding", 30, 90, 30, bold=True),
             T("642 photos   -   Published 22 Apr 2025", 30, 140, 22), T("Visits 1,284", 30, 200, 24), T("Downloads 87", 30, 240, 24),
             T("Favourites 214 (list: Album picks)", 30, 280, 24), T("Expires 22 Apr 2026", 30, 330, 22)]
    png_screenshot(SS + "Screenshot 2025-05-27 at 10.14.52 am.png", (640, 380), items, "2025-05-27 10:14")

    items = [T("parkrun", 30, 25, 30, bold=True), T("Merri Creek parkrun #228", 30, 85, 26), T("Sat 31 May 2025", 30, 125, 22),
             T("24:41", 30, 175, 54, bold=True), T("NEW PB!", 260, 190, 30, bold=True), T("Position 35    Gender position 15", 30, 260, 22),
             T("Age grade 60.17%", 30, 300, 22)]
    png_screenshot(SS + "Screenshot 2025-05-31 at 9.02.44 am.png", (560, 350), items, "2025-05-31 09:02")

    items = [T("BOM Weather - Melbourne", 30, 25, 26, bold=True), T("Tue 3 Jun", 30, 80, 24), T("Fog then sunny   4 - 14 C", 30, 120, 24),
             T("Sunrise 7:29 am    Sunset 5:09 pm", 30, 170, 22), T("Wed 4 Jun   Cloudy   7 - 15 C", 30, 230, 22),
             T("Thu 5 Jun   Showers   9 - 14 C", 30, 265, 22)]
    png_screenshot(SS + "Screenshot 2025-06-03 at 7.12.09 am.png", (560, 320), items, "2025-06-03 07:12")

    JB = "Pictures/Jobs/"
    items = [T("HARTLEY LEGAL - HEADSHOT SETUP", 30, 25, 28, bold=True), T("Backdrop: Savage Thunder Grey, subject 1.2 m in front", 30, 90, 22),
             T("Key: AD200Pro in 90 cm octa, 45 deg camera left, 1/8 power", 30, 130, 22), T("Fill: white foam board camera right", 30, 170, 22),
             T("Hair light: none (backdrop does the separation)", 30, 210, 22), T("Camera: 85mm f/1.8 @ f/4, 1/200 s, ISO 200", 30, 250, 22),
             T("Tethered to MacBook - Capture One", 30, 290, 22)]
    png_screenshot(JB + "Hartley - lighting diagram.png", (820, 340), items, "2025-02-11 21:30")
    rr = rng("contact")
    items = [T("Little Ochre - contact sheet (selects)", 20, 15, 24, bold=True)]
    for i in range(16):
        x, y = 20 + (i % 4) * 230, 70 + (i // 4) * 120
        items.append(T(f"20250327_littleochre_{rr.randint(1, 420):04d}", x, y + 80, 13))
    png_screenshot(JB + "Little Ochre - contact sheet.png", (940, 560), items, "2025-03-29 15:10",
                   boxes=[(20 + (i % 4) * 230, 70 + (i // 4) * 120, 200, 75, "0x888888") for i in range(16)])


# ----------------------------------------------------------------------------------------
# Recordings: voice memos (WAV / M4A / MP3) and one screen recording (MP4)
# ----------------------------------------------------------------------------------------

RECORDINGS = {
    "Recordings/2025-02-18 call with Linh.m4a": ("2025-02-18 17:26", "en-gb+f3", [
        "Quick notes after the call with Linh, Tuesday the eighteenth.",
        "The first look is moving from the cellar door to the little jetty by the dam, at quarter past two.",
        "Ben's grandmother Nora uses a wheelchair, so the family formals go on the flat lawn, not the stone steps.",
        "They want a photo at the tea ceremony table before the ceremony, with both sets of parents.",
        "Linh prefers her right side, so shoot her from the right where I can.",
        "Sam can cover the groomsmen getting ready at the cottage next door from two."]),
    "Recordings/Voice memo 2025-03-11 vet.wav": ("2025-03-11 17:52", "en-gb+f4", [
        "Vet notes for Biscuit.",
        "She weighs seventeen point two kilos, up half a kilo, so cut the dinner scoop back a little.",
        "Keep her out of the creek until the recheck, no swimming.",
        "Clean the ear with the wash every third day, before the drops.",
        "Recheck is Tuesday the twenty fifth at five forty."]),
    "Recordings/2025-03-06 Hartley reshoot.wav": ("2025-03-06 10:05", "en-gb-x-rp+f3", [
        "Hartley reshoot done.",
        "Greg wanted the tie off for the second look, Anika asked for light retouching only, no smoothing.",
        "Fiona needs both by Friday the seventh because the new website goes live on Tuesday the eleventh.",
        "Bill nothing extra, it was their scheduling, but add the four images to the gallery."]),
    "Recordings/Grace and Marco venue walkthrough.wav": ("2025-03-29 14:12", "en-gb+f2", [
        "Walkthrough at Wombat Hill Estate.",
        "Ceremony on the jetty lawn, the sun will be behind the guests at two, which is good.",
        "Sunset on the day is five fifty two, so golden hour portraits by the lake from about five fifteen.",
        "The rain plan is the Boathouse room, and it is dark in there, so bring both flashes and the umbrella.",
        "Supplier parking is behind the kitchen, and the gate code is one nine eight seven."]),
    "Recordings/New Recording 14.m4a": ("2025-04-03 15:48", "en-gb-scotland+f3", [
        "Car service notes from Mike's Auto Care.",
        "Front brake pads are at about thirty percent, so replace them at the next service.",
        "The tyres were rotated, fronts to the back.",
        "Next service is due at ninety five thousand kilometres or in October, whichever comes first.",
        "The odometer was at eighty one thousand four hundred today.",
        "It came to three hundred and ninety eight dollars."]),
    "Recordings/exhibition idea.mp3": ("2025-05-08 11:34", "en-gb+f3", [
        "Idea for the Sydney Road show.",
        "Call it Northside Light.",
        "Only sunrise, the first forty minutes, on the streets of Brunswick and Coburg that run east west.",
        "Maybe twelve prints, fifty by seventy, framed in Tasmanian oak.",
        "Shoot the rest over the next three weeks on the morning walks with Biscuit."]),
    "Recordings/parkrun debrief 2025-05-31.wav": ("2025-05-31 09:20", "en-gb+f4", [
        "Parkrun, thirty first of May.",
        "Twenty four forty one, a new best by eight seconds.",
        "I went out at a steady pace and ran the last kilometre along the lake faster than the first.",
        "Next goal is under twenty four minutes by the end of July, so I'm adding the Thursday hill session with the Merri Runners."]),
    "Recordings/Memo 2025-06-16 tax.m4a": ("2025-06-16 20:05", "en-gb-x-rp+f4", [
        "Tax time list.",
        "Home office: I've worked from the spare room about twenty two hours a week since July.",
        "The car logbook came out at sixty four percent business use over the twelve weeks.",
        "Send Rhonda the logbook, the home office log and the super notice by the thirty first of July.",
        "Check whether the new lens can be bought before the thirtieth of June for the instant asset write off."]),
}

SCREEN_REC = "Recordings/Screen Recording 2025-05-02 at 4.10.22 pm.mp4"
SCREEN_SLIDES = [
    (["Export preset: Web gallery", "Image sizing: resize to fit, long edge 2048 px", "Resolution: 72 ppi"],
     "This is my web gallery export. Resize to fit, long edge two thousand and forty eight pixels."),
    (["File settings", "JPEG, quality 76", "Colour space: sRGB"], "The file settings are JPEG at quality seventy six, in s R G B."),
    (["Output sharpening", "Sharpen for: Screen, amount: Standard"], "Output sharpening is for screen, with the amount on standard."),
    (["Watermark", "TB logo, bottom right, opacity 35%", "Social media exports only - never on client galleries"],
     "The watermark goes bottom right at thirty five percent, but only on social media exports, never on client galleries."),
    (["Export preset: Print", "Full size, JPEG quality 100", "Adobe RGB, 300 ppi"],
     "For prints I export full size, quality one hundred, in Adobe R G B at three hundred p p i."),
]


def build_recordings() -> None:
    for rel, (mtime, voice, sentences) in RECORDINGS.items():
        voice_note(rel, sentences, mtime, voice=voice, speed=150)
    screen_recording(SCREEN_REC, SCREEN_SLIDES, "2025-05-02 16:12")


# ----------------------------------------------------------------------------------------
# Desktop, scripts, the Shootbook app database
# ----------------------------------------------------------------------------------------

def build_desktop_and_code() -> None:
    put("Desktop/todo.txt", """TO DO (June)
- [x] rego - paid 17/6
- [x] sign new lease
- [ ] Saltbush invoice -> sent 10/6, chase 24/6
- [ ] renew Lens & Shutter insurance before 1 Aug (check sum insured covers the 70-200)
- [ ] MPA entries: pick 4 from Northside Light + 2 wedding
- [ ] order more 8x10 lustre boxes
- [ ] tax: logbook, home office log -> Rhonda by 31/7
- [ ] Biscuit groom 28/6
""", "2025-06-17 21:05")
    staff = ["Fiona Mercer", "Greg Hartley", "Anika Shah", "Tom Beaumont", "Leila Haddad", "Chris Nguyen", "Maeve O'Connor",
             "Raj Mehta", "Sophie Lambert", "Daniel Kowalski", "Priscilla Wong", "Harry Fitzgerald", "Amira Saleh",
             "Josh Petrakis", "Ellen Tran", "Marcus Bell", "Olivia Chen", "Sam Ryder", "Nikita Rao", "Ben Cartwright"]
    lines = ["Hartley Legal - headshot order (Wed 12 Feb, boardroom 2)", ""]
    t = dt.datetime(2025, 2, 12, 8, 30)
    for i, s in enumerate(staff):
        lines.append(f"{t.strftime('%H:%M')}  {s}")
        t += dt.timedelta(minutes=12)
        if i == 9:
            lines.append(f"{t.strftime('%H:%M')}  -- break / swap to window light --")
            t += dt.timedelta(minutes=15)
    lines += ["", "Greg + Anika may be in court - check with Fiona at 8."]
    put("Desktop/Hartley shot list.txt", "\n".join(lines) + "\n", "2025-02-11 22:10")
    put("Desktop/Grace & Marco - family formals.txt", """Family formals - Grace & Marco (26/4), straight after ceremony

1. Nonna Bellini + all 11 grandkids  (FIRST - she tires quickly)
2. G + M with Bellini parents
3. G + M with Liu parents
4. G + M with both sets of parents
5. Marco + siblings (Luca, Chiara)
6. Grace + sister (Amy) + Amy's kids
7. Whole Bellini family
8. Whole Liu family
9. Bridal party
Wrangler: Luca
""", "2025-04-24 21:40")

    put("Business/scripts/rename_raws.py", '''#!/usr/bin/env python3
"""Rename camera RAW files after ingest: YYYYMMDD_client_NNNN.ARW (sequence in capture order).

usage: rename_raws.py /Volumes/Working/2025-03-15 nguyenwalsh [--dry-run]
"""
import sys
from datetime import datetime
from pathlib import Path

EXTS = {".arw", ".jpg", ".hif"}


def capture_time(p: Path) -> datetime:
    # Sony writes the capture time into the file's mtime on the card; good enough for ordering
    return datetime.fromtimestamp(p.stat().st_mtime)


def main() -> None:
    folder, client = Path(sys.argv[1]), sys.argv[2].lower().replace(" ", "")
    dry = "--dry-run" in sys.argv
    files = sorted((p for p in folder.iterdir() if p.suffix.lower() in EXTS), key=capture_time)
    for n, p in enumerate(files, start=1):
        new = p.with_name(f"{capture_time(p):%Y%m%d}_{client}_{n:04d}{p.suffix.upper()}")
        print(f"{p.name} -> {new.name}")
        if not dry:
            p.rename(new)


if __name__ == "__main__":
    main()
''', "2024-09-14 16:30")
    put("Business/scripts/export_presets.json", json.dumps({
        "web_gallery": {"long_edge_px": 2048, "format": "JPEG", "quality": 76, "colour_space": "sRGB", "ppi": 72,
                        "sharpen": {"for": "screen", "amount": "standard"}, "watermark": False},
        "social": {"long_edge_px": 2048, "format": "JPEG", "quality": 80, "colour_space": "sRGB",
                   "watermark": {"file": "tb-logo-white.png", "position": "bottom-right", "opacity": 0.35}},
        "print": {"size": "full", "format": "JPEG", "quality": 100, "colour_space": "AdobeRGB", "ppi": 300, "sharpen": {"for": "matte paper", "amount": "low"}},
        "mpa_entry": {"long_edge_px": 3000, "format": "JPEG", "quality": 95, "colour_space": "sRGB", "watermark": False}},
        indent=2) + "\n", "2025-05-02 16:30")
    put("Business/scripts/backup.sh", """#!/bin/bash
# Nightly backup: working SSD -> Synology NAS (kookaburra) -> Backblaze B2.
# Runs from launchd at 01:00 (~/Library/LaunchAgents/au.tahlia.backup.plist).
set -euo pipefail
SRC="/Volumes/Working/Jobs/"
NAS="/Volumes/kookaburra/Jobs/"
LOG="$HOME/Library/Logs/tb-backup.log"

echo "$(date '+%d/%m/%Y %H:%M') start" >> "$LOG"
rsync -a --delete-after --exclude '.DS_Store' "$SRC" "$NAS" >> "$LOG" 2>&1
# offsite copy of the NAS
rclone sync "$NAS" b2:tb-photo-archive/Jobs --transfers 8 --fast-list >> "$LOG" 2>&1
echo "$(date '+%d/%m/%Y %H:%M') done" >> "$LOG"
""", "2024-07-20 21:00")

    # Shootbook (a booking / delivery app) SQLite database
    shoots = []
    for s in HR_SHOOTS:
        shoots.append(("Harcourt & Rowe Real Estate", s["date"].isoformat(), s["time"], s["address"], "property" + (" + twilight" if s["twilight"] else ""),
                       "delivered", 25 if not s["twilight"] else 29, "dropbox", None, (s["date"] + dt.timedelta(days=1 if s["date"].weekday() < 4 else 3)).isoformat()))
    extra = [("Hartley Legal", "2025-02-12", "08:00", "Level 9, 530 Collins St, Melbourne", "headshots", "delivered", 36, "pixieset", "hartley-0212", "2025-02-19"),
             ("Hartley Legal", "2025-03-06", "09:00", "Level 9, 530 Collins St, Melbourne", "headshots (reshoot)", "delivered", 4, "pixieset", "hartley-0212", "2025-03-07"),
             ("Brunswick Business Association", "2025-03-02", "12:00", "Sydney Road, Brunswick", "event", "delivered", 118, "dropbox", None, "2025-03-04"),
             ("Linh Nguyen & Ben Walsh", "2025-03-15", "12:15", "Coldstream Ridge Winery, Coldstream", "wedding", "delivered", 642, "pixieset", "nw-0315", "2025-04-22"),
             ("Little Ochre Cafe", "2025-03-27", "07:00", "311 Lygon St, Brunswick East", "menu", "delivered", 52, "dropbox", None, "2025-03-31"),
             ("Grace Liu & Marco Bellini", "2025-04-26", "11:00", "Wombat Hill Estate, Daylesford", "wedding", "editing", None, "pixieset", "gm-0426", None),
             ("Autumn minis (14 families)", "2025-05-03", "08:30", "Edinburgh Gardens, Fitzroy North", "mini sessions", "delivered", 140, "pixieset", None, "2025-05-13"),
             ("Saltbush Yoga", "2025-06-05", "08:00", "5 Munro St, Coburg", "brand", "delivered", 64, "pixieset", "saltbush-0605", "2025-06-19"),
             ("Patel-Morris", "2024-10-12", "11:30", "Abbotsford Convent", "wedding", "delivered", 588, "pixieset", "pm-1012", "2024-11-18")]
    shoots += extra
    shoots.sort(key=lambda x: (x[1], x[2]))
    clients = sorted({s[0] for s in shoots})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "shootbook.db"
        con = sqlite3.connect(path)
        con.executescript("""
            PRAGMA page_size = 4096;
            CREATE TABLE clients (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE shoots (id INTEGER PRIMARY KEY, client_id INTEGER REFERENCES clients(id), shoot_date TEXT NOT NULL,
                                 start_time TEXT, location TEXT, kind TEXT, status TEXT, images_delivered INTEGER,
                                 gallery TEXT, gallery_password TEXT, delivered_on TEXT);
            CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT);
        """)
        con.executemany("INSERT INTO clients (name) VALUES (?)", [(c,) for c in clients])
        cid = {c: i + 1 for i, c in enumerate(clients)}
        con.executemany("INSERT INTO shoots (client_id, shoot_date, start_time, location, kind, status, images_delivered, gallery, gallery_password, delivered_on) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?)", [(cid[s[0]],) + s[1:] for s in shoots])
        con.executemany("INSERT INTO settings VALUES (?, ?)", [("owner", "Tahlia Brennan Photography"), ("currency", "AUD"),
                                                              ("timezone", "Australia/Melbourne"), ("default_delivery_weeks", "6")])
        con.commit()
        con.close()
        put("apps/Shootbook/shootbook.db", path.read_bytes(), "2025-06-19 17:30")
    FACTS["shoots"] = shoots
    REG["apps/Shootbook/shootbook.db"] = {"kind": "sqlite", "shoots": shoots, "clients": clients}


# ========================================================================================
# Main
# ========================================================================================

def build_all() -> None:
    build_invoices()
    build_quotes_and_prices()
    build_money()
    build_documents()
    build_downloads()
    build_mail()
    build_saved_mail()
    build_vault()
    build_calendars()
    build_pictures()
    build_recordings()
    build_desktop_and_code()


def set_mtimes() -> None:
    for rel, d in MTIMES.items():
        ts = d.timestamp()
        os.utime(HOME / rel, (ts, ts))
    folders: dict[Path, float] = {}
    for rel, d in MTIMES.items():
        p = (HOME / rel).parent
        while p != HOME.parent:
            folders[p] = max(folders.get(p, 0.0), d.timestamp())
            p = p.parent
    for p, ts in sorted(folders.items(), key=lambda kv: -len(kv[0].parts)):
        os.utime(p, (ts, ts))


# ========================================================================================
# Questions (qa.json): locators are resolved against the generated files
# ========================================================================================

MODALITY = {"pdf": "document", "docx": "document", "xlsx": "document", "pptx": "document", "png": "image",
            "wav": "audio", "mp3": "audio", "m4a": "audio", "mp4": "video"}


def ext_of(rel: str) -> str:
    if REG.get(rel, {}).get("kind") == "mbox":
        return "mbox"
    return rel.rsplit(".", 1)[1].lower()


def modality(rel: str) -> str:
    return MODALITY.get(ext_of(rel), "text")


def _unique(hits: list, what: str):
    if len(hits) != 1:
        raise SystemExit(f"locator for {what}: expected one match, got {hits}")
    return hits[0]


def L_page(rel: str, needle: str) -> dict:
    pages = REG[rel]["pages"]
    hits = [i + 1 for i, p in enumerate(pages) if needle in "\n".join(p)]
    return {"unit": "page", "position": {"system_page": _unique(hits, f"{rel}: {needle}")}}


def L_rows(rel: str, sheet: str, needles: list[str]) -> dict:
    rows = REG[rel]["sheets"][sheet]
    out = [_unique([i + 1 for i, r in enumerate(rows) if n in r], f"{rel}/{sheet}: {n}") for n in needles]
    return {"unit": "sheet", "position": {"sheet": sheet, "rows": sorted(out)}}


def file_lines(rel: str) -> list[str]:
    return (HOME / rel).read_text(encoding="utf-8").splitlines()


def line_no(rel: str, needle: str) -> int:
    return _unique([i + 1 for i, l in enumerate(file_lines(rel)) if needle in l], f"{rel}: {needle}")


def L_lines(rel: str, first: str, last: str | None = None) -> dict:
    a = line_no(rel, first)
    b = line_no(rel, last) if last else a
    return {"unit": "line", "position": {"start": a, "end": b}}


def L_csv(rel: str, needle: str) -> dict:
    return {"unit": "row", "position": {"line": line_no(rel, needle)}}


def L_event(rel: str, uid: str) -> dict:
    return {"unit": "event", "position": {"uid": uid, "summary": REG[rel]["events"][uid]["summary"]}}


def hms(t: float) -> str:
    t = int(t)
    return f"{t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}"


def L_time(rel: str, needle: str) -> dict:
    segs = [s for s in REG[rel]["segments"] if needle in s[2]]
    start, end, _ = _unique(segs, f"{rel}: {needle}")
    return {"unit": "timestamp", "position": f"{hms(math.floor(start))}–{hms(math.ceil(end))}"}


def L_shoot(needle: str) -> dict:
    rows = REG["apps/Shootbook/shootbook.db"]["shoots"]
    hits = [i + 1 for i, r in enumerate(rows) if needle in " | ".join("" if v is None else str(v) for v in r)]
    return {"unit": "row", "position": {"table": "shoots", "rowid": _unique(hits, f"shootbook: {needle}")}}


def L_msg(rel: str, msgid: str) -> dict:
    """A message inside an mbox folder."""
    m = REG[rel]["messages"][msgid]
    return {"unit": "message", "position": {"message_id": f"<{msgid}>", "subject": m["subject"]}}


def msg_date(rel: str, msgid: str) -> str:
    return "Date: " + rfc_date(REG[rel]["messages"][msgid]["date"])


def ev(rel: str, text: str, locators: list[dict | None]) -> dict:
    if not (HOME / rel).exists():
        raise SystemExit(f"evidence file missing: {rel}")
    locs = [l for l in locators if l is not None]
    return {"file_path": rel, "modality_type": modality(rel), "evidence_text": text, "evidence_locator": locs}


def Q(qid: str, question: str, answer: str, qa_type: str, evidence: list[dict], cap: dict,
      profiling_type: str | None = None, steps: list[str] | None = None) -> dict:
    files: list[str] = []
    for e in evidence:
        if e["file_path"] not in files:
            files.append(e["file_path"])
    ids = [f"E{i}" for i in range(1, len(evidence) + 1)]
    rec = {"id": qid, "question": question, "answer": answer, "QA_type": qa_type}
    if profiling_type:
        rec["profiling_type"] = profiling_type
    rec.update({
        "file_path": files, "file_number": len(files),
        "file_modality": sorted({modality(f) for f in files}),
        "file_type": sorted({ext_of(f) for f in files}),
        "evidence": [{"evidence_id": i, **e} for i, e in zip(ids, evidence)],
    })
    rationale = []
    if steps:
        for k, s in enumerate(steps, start=1):
            rationale.append({"step_id": k, "rationale_text": s, "evidence_id": ids})
    else:
        for i, e in zip(ids, evidence):
            rationale.append({"step_id": len(rationale) + 1,
                              "rationale_text": f"Read the {e['modality_type']} evidence in {e['file_path']}: “{e['evidence_text']}”.",
                              "evidence_id": [i]})
    last = "Answer from the evidence: " if len(evidence) == 1 else "Combine the evidence to answer: "
    rationale.append({"step_id": len(rationale) + 1, "rationale_text": last + answer, "evidence_id": ids})
    rec["rationale"] = rationale
    rec["agent_cap"] = cap
    return rec


def cap(search: list[str], perception: list[str], reasoning: list[str]) -> dict:
    return {"search": search, "evidence_perception": perception, "reasoning": reasoning}


def csv_row(rel: str, needle: str) -> str:
    """The CSV line containing needle, as written (commas and all)."""
    return file_lines(rel)[line_no(rel, needle) - 1]


def build_questions() -> list[dict]:
    qs: list[dict] = []
    S = ["semantic_search"]
    INBOX, SENT, ARCH = "Mail/Local Folders/Inbox", "Mail/Local Folders/Sent", "Mail/Archive 2024.mbox"
    q3, q2 = FACTS["bas_q3"], FACTS["bas_q2"]
    CAL, DEVR, HOL = "Calendar/Tahlia.ics", "Calendar/Dev roster.ics", "Calendar/Victorian public holidays 2025.ics"
    BIZ = lambda m: f"Money/Bank/YarraMutual_BusinessEveryday_2025-{m:02d}.csv"
    PERS = lambda m: f"Money/Bank/YarraMutual_EverydaySaver_2025-{m:02d}.csv"
    TZL = "DTSTART;TZID=Australia/Melbourne:"

    # --- factual retention: documents ---------------------------------------------------------
    f = "Business/Invoices/INV-2025-008.pdf"
    no, total, n, twi = FACTS["hr_2025-03"]
    qs.append(Q("p3_01", "How many houses did I photograph for the real estate agency in March, and what did that month's bill to them come to?",
                f"{n} property shoots in March 2025, {twi} of them with the twilight add-on; invoice {no} (dated 01/04/2025) totals A${total:,.2f} including GST.",
                "factual_retention",
                [ev(f, f"{n} property shoots in March 2025 … TOTAL DUE A${total:,.2f}", [L_page(f, "TOTAL DUE")])],
                cap(S + ["temporal_filter"], ["pdf_text_and_tables"], ["direct_lookup", "entity_disambiguation"]),
                steps=[f"The agency (Harcourt & Rowe) is invoiced monthly; the invoice covering March shoots is {no}, issued 1 April (the February and April invoices are look-alikes). It lists {n} shoots, {twi} twilight add-ons, total A${total:,.2f}."]))

    f = "Business/Quotes/Quote - Nguyen-Walsh wedding FINAL.docx"
    qs.append(Q("p3_02", "What did Linh and Ben's wedding package finally cost them, and how much did they put down up front?",
                "$4,850 including GST (Collection B+: 9 hours, second shooter for 6 hours, sparkler exit), with a $1,200 deposit and a $3,650 balance. The drafts had $4,200 (v1) and $4,650 (v2).",
                "factual_retention",
                [ev(f, "Collection B+ (9 hrs) | $4,850.00 … Deposit to secure the date | $1,200.00", [L_page(f, "Collection B+ (9 hrs)")])],
                cap(S, ["document_parsing"], ["direct_lookup", "version_resolution"]),
                steps=["Three quote versions exist (v1, v2, FINAL) plus a Desktop copy of v2; the FINAL one counts: $4,850 with a $1,200 deposit."]))

    f = "Business/BAS/BAS workings Q3 FY25 (Jan-Mar 2025).xlsx"
    qs.append(Q("p3_03", "For the January to March quarter, how much GST did I collect on sales and how much did I get to claim back on purchases?",
                f"GST on sales (1A) ${q3['a1']:,.2f}; GST credits on purchases (1B) ${q3['b1']:,.2f}; so ${q3['net']:,.2f} net payable (total sales G1 ${q3['g1']:,.2f}).",
                "factual_retention",
                [ev(f, f"1A GST on sales | {q3['a1']:g} … 1B GST on purchases | {q3['b1']:g}",
                    [L_rows(f, "Summary", ["1A GST on sales", "1B GST on purchases"])])],
                cap(S + ["temporal_filter"], ["spreadsheet_reading"], ["direct_lookup", "entity_disambiguation"]),
                steps=["Two BAS workbooks exist (Oct-Dec 2024 and Jan-Mar 2025); the Q3 FY25 one's Summary sheet gives 1A and 1B."]))

    f1, f2 = "Business/BAS/BAS workings Q3 FY25 (Jan-Mar 2025).xlsx", BIZ(5)
    rid = "PC-0519-rp@pellegrinico.com.au"
    qs.append(Q("p3_04", "Did what I paid the tax office in May match what my March-quarter BAS said I owed?",
                f"Yes. The workings show net GST payable of ${q3['net']:,.2f}; Rhonda lodged it on 19 May with ${q3['net']:,.2f} payable by 26 May, and ${q3['net']:,.2f} went to the ATO by BPAY on 23/05/2025.",
                "factual_retention",
                [ev(f1, f"Net GST payable (1A - 1B) | {q3['net']:g}", [L_rows(f1, "Summary", ["Net GST payable"])]),
                 ev(f2, csv_row(f2, "ATO BPAY"), [L_csv(f2, "ATO BPAY")]),
                 ev(INBOX, f"Amount payable ${q3['net']:,.2f} … payment is due by Monday 26 May", [L_msg(INBOX, rid)])],
                cap(S + ["multi_file_retrieval", "temporal_filter"], ["spreadsheet_reading", "csv_parsing", "email_parsing"], ["cross_reference", "arithmetic"])))

    f = "Documents/Home/Rent increase notice 2025.pdf"
    qs.append(Q("p3_05", "How much more a week will we be paying in rent, and starting when?",
                "$35 more a week: from $575.00 to $610.00 per week, taking effect 01/07/2025 (notice dated 14/04/2025).",
                "factual_retention",
                [ev(f, "Current rent: $575.00 per week … New rent: $610.00 per week … Increase takes effect: 01/07/2025", [L_page(f, "New rent")])],
                cap(S, ["pdf_text_and_tables"], ["direct_lookup", "arithmetic"])))

    f = "Documents/Home/Lease 3-41 Hope St (2024-25).pdf"
    qs.append(Q("p3_06", "How much bond is sitting with the bond authority for our flat, and what's the bond number?",
                "$2,300.00 (four weeks' rent), lodged with the RTBA under bond no. 4471902.",
                "factual_retention",
                [ev(f, "Bond: $2,300.00 (four weeks' rent) … Bond lodged: RTBA, bond no. 4471902", [L_page(f, "Bond lodged")])],
                cap(S, ["pdf_text_and_tables"], ["direct_lookup"])))

    f = "Documents/Travel/Tasmania 2025/Spirit of Tasmania booking SOT7734218.pdf"
    qs.append(Q("p3_07", "What time did the ferry home from Devonport leave, and what did the whole booking cost us?",
                "The return day sailing left Devonport at 09:00 on Thursday 24/04/2025 (arriving Geelong 19:00); the booking (SOT7734218) cost $1,146.00 in total.",
                "factual_retention",
                [ev(f, "Devonport > Geelong (Spirit IV) Thu 24/04/2025 09:00 Thu 24/04/2025 19:00 … TOTAL PAID Visa ending 4471 $1,146.00", [L_page(f, "TOTAL PAID")])],
                cap(S, ["pdf_text_and_tables"], ["direct_lookup"])))

    f = "Documents/Home/Kestrel Energy bill Apr 2025.pdf"
    qs.append(Q("p3_08", "Why was our latest electricity bill up on last year, and when did it have to be paid?",
                "Usage was 17% higher than the same period last year because of February's heatwave (41.2 C on 28 Feb) and the air-conditioner; the $412.18 bill was due 05/05/2025.",
                "factual_retention",
                [ev(f, "Amount due: $412.18 … Due date: 05/05/2025 … Your usage was 17% higher than the same period last year", [L_page(f, "Amount due")])],
                cap(S + ["temporal_filter"], ["pdf_text_and_tables"], ["direct_lookup", "entity_disambiguation"])))

    f = "Documents/Exhibition/Northside Light - artist statement FINAL.docx"
    qs.append(Q("p3_09", "In the version of my exhibition statement I actually submitted, how many prints did I propose, at what size and on what paper?",
                "Ten prints, 50 x 70 cm archival pigment prints on Hahnemuhle Photo Rag, framed in Tasmanian oak (the draft and my voice memo said twelve).",
                "factual_retention",
                [ev(f, "The ten prints are 50 x 70 cm archival pigment prints on Hahnemuhle Photo Rag, framed in Tasmanian oak.", [L_page(f, "The ten prints")])],
                cap(S, ["document_parsing"], ["direct_lookup", "version_resolution"])))

    f = "apps/Shootbook/shootbook.db"
    qs.append(Q("p3_10", "How many photos ended up in Linh and Ben's gallery, and on what day did it go out to them?",
                "642 images, delivered on 22/04/2025 (the wedding was 15 March, so just under six weeks).",
                "factual_retention",
                [ev(f, "2025-03-15 … wedding | delivered | 642 | pixieset | nw-0315 | 2025-04-22", [L_shoot("nw-0315")])],
                cap(S, ["database_query"], ["direct_lookup"])))

    f = "Downloads/merri-creek-parkrun-event-218-results.csv"
    last_line = file_lines(f)[-1]
    qs.append(Q("p3_11", "How many people finished parkrun on 22 March, and where did I come?",
                "131 finishers at Merri Creek parkrun event #218; I was 47th in 25:38.",
                "factual_retention",
                [ev(f, csv_row(f, "Tahlia BRENNAN") + " … " + last_line, [L_csv(f, "Tahlia BRENNAN"), L_csv(f, last_line)])],
                cap(S, ["csv_parsing"], ["direct_lookup", "counting"])))

    f = "Business/Gear register.xlsx"
    qs.append(Q("p3_12", "What's the serial number of my main camera body, and how many shutter actuations did the repairers count when it was serviced in January?",
                "Sony A7 IV, serial 5073219; Camera Clinic counted 148,312 actuations (rated to 500,000) at the January 2025 service.",
                "factual_retention",
                [ev(f, "Sony A7 IV body (main) | 5073219", [L_rows(f, "Gear", ["Sony A7 IV body"])]),
                 ev(INBOX, "actuations 148,312 - rated to 500,000", [L_msg(INBOX, "cc40912@cameraclinic.com.au")])],
                cap(S + ["multi_file_retrieval"], ["spreadsheet_reading", "email_parsing"], ["cross_reference"])))

    # --- calendars ------------------------------------------------------------------------------
    qs.append(Q("p3_13", "When is the last regular wheel-throwing night this term, and is there a week with no class?",
                "The Wednesday class (6:30-8:30 pm) runs until Wednesday 18 June 2025; there is no class on 4 June, and a make-up class is on Wednesday 25 June.",
                "factual_retention",
                [ev(CAL, "RRULE:FREQ=WEEKLY;BYDAY=WE;UNTIL=20250618T103000Z … EXDATE;TZID=Australia/Melbourne:20250604T183000",
                    [L_event(CAL, "pottery-t2@tahliabrennan.com.au")]),
                 ev(CAL, "SUMMARY:Pottery make-up class … " + TZL + "20250625T183000", [L_event(CAL, "pottery-makeup@tahliabrennan.com.au")])],
                cap(S + ["temporal_filter"], ["calendar_parsing"], ["recurrence_expansion", "temporal_reasoning"])))

    qs.append(Q("p3_14", "Is Dev working on the June public holiday, and if so what hours?",
                "Yes: the King's Birthday holiday is Monday 9 June 2025 and Dev's roster has him on a Late shift in ED, 1:00-9:30 pm.",
                "factual_retention",
                [ev(HOL, "SUMMARY:King's Birthday … DTSTART;VALUE=DATE:20250609", [L_event(HOL, "vic-2025-06-09@holidays.vic.gov.au")]),
                 ev(DEVR, "SUMMARY:Dev - Late (ED) … " + TZL + "20250609T130000", [L_event(DEVR, "dev-2025-06-09@roster.parkvillegeneral.org.au")])],
                cap(S + ["multi_file_retrieval", "temporal_filter"], ["calendar_parsing"], ["cross_reference", "temporal_reasoning"])))

    # --- pictures ----------------------------------------------------------------------------------
    f = "Pictures/Camera Roll/IMG_2041.png"
    qs.append(Q("p3_15", "What did I spend on memory cards the day before Linh and Ben's wedding?",
                "$158.00 for two SanDisk Extreme PRO 128GB SDXC cards at $79.00 each, at Lenspoint Melbourne on 14/03/2025 (the receipt total was $170.95 with a lens cloth).",
                "factual_retention",
                [ev(f, "14/03/2025 … SanDisk Extreme PRO 128GB SDXC … 2 @ $79.00 $158.00", [])],
                cap(S + ["temporal_filter"], ["image_ocr"], ["direct_lookup", "temporal_reasoning"])))

    f = "Pictures/Camera Roll/IMG_2047.png"
    qs.append(Q("p3_16", "At the café menu shoot, which dish did we photograph first?",
                "Ricotta hotcakes (number 1 on the whiteboard shot order; the matcha latte was the hero shot for Instagram).",
                "factual_retention",
                [ev(f, "THURS SHOOT ORDER (7am!) … 1. Ricotta hotcakes", [])],
                cap(S, ["image_ocr"], ["direct_lookup"])))

    f = "Pictures/Camera Roll/IMG_2063.png"
    qs.append(Q("p3_17", "How many drops am I meant to put in Biscuit's ear, and how often?",
                "5 drops of Surolan into the left ear twice a day for 10 days (label dated 11/03/2025, Dr S Rao).",
                "factual_retention",
                [ev(f, "Apply 5 drops into the LEFT ear … twice daily for 10 days.", [])],
                cap(S, ["image_ocr"], ["direct_lookup"])))

    f = "Pictures/Screenshots/Screenshot 2025-02-10 at 8.14.20 pm.png"
    qs.append(Q("p3_18", "Where did I park for the law firm headshot day, and what did parking cost?",
                "The CityPark secure car park at 525 Collins St (entry via Flinders Lane), level B2, booked 7:45 am-1:00 pm on Wed 12 Feb 2025 at the $32.00 early-bird rate.",
                "factual_retention",
                [ev(f, "Secure car park - 525 Collins St … Level B2 - any bay … Early bird rate $32.00", [])],
                cap(S, ["image_ocr"], ["direct_lookup", "entity_disambiguation"])))

    f = "Pictures/Screenshots/Screenshot 2025-04-09 at 8.41.17 pm.png"
    qs.append(Q("p3_19", "Where is my niece's birthday party being held, and what sort of cake is she after?",
                "Mia's party is on Saturday 10 May, 11 till 1, at the Eastern Beach playground near the pool in Geelong; she wants a unicorn cake.",
                "factual_retention",
                [ev(f, "Mia's party is Sat 10 May, 11 till 1 … at the Eastern Beach playground … She wants a unicorn cake lol", [])],
                cap(S, ["image_ocr"], ["direct_lookup"])))

    f = "Pictures/Screenshots/Screenshot 2025-04-17 at 5.02.11 pm.png"
    qs.append(Q("p3_20", "Which cabin were we in on the overnight crossing to Tasmania?",
                "Cabin 8117 on Deck 8, a 2-berth inside cabin (Biscuit was in kennel 23 on deck 5).",
                "factual_retention",
                [ev(f, "Cabin 8117 (Deck 8) - 2 berth inside", [])],
                cap(S, ["image_ocr"], ["direct_lookup"])))

    f1, f2 = "Pictures/Camera Roll/IMG_2058.png", "Vault/Daily/2025-05-22.md"
    qs.append(Q("p3_21", "Why did we have no water one morning in May, and how long was it off?",
                "Thursday 22 May, 8:00 am to 1:00 pm: plumbers were replacing the building's main stop valve (notice from Barkly Property Group); I showered at Brunswick Baths.",
                "factual_retention",
                [ev(f1, "Water will be OFF … Thursday 22 May … 8:00 am - 1:00 pm … Plumbers are replacing the main stop valve.", []),
                 ev(f2, "No water 8 am - 1 pm (plumbers on the main valve - note from the agent on the door).", [L_lines(f2, "No water 8 am")])],
                cap(S + ["multi_file_retrieval", "temporal_filter"], ["image_ocr", "markdown_reading"], ["cross_reference"])))

    # --- recordings ---------------------------------------------------------------------------------
    f = "Recordings/2025-02-18 call with Linh.m4a"
    s = "The first look is moving from the cellar door to the little jetty by the dam, at quarter past two."
    qs.append(Q("p3_22", "Where did Linh and Ben end up doing their first look?",
                "At the little jetty by the dam, at 2:15 pm - moved from the cellar door (from my voice memo after the call on 18 February).",
                "factual_retention", [ev(f, s, [L_time(f, s)])],
                cap(S, ["speech_transcription"], ["direct_lookup"])))

    s = "Ben's grandmother Nora uses a wheelchair, so the family formals go on the flat lawn, not the stone steps."
    qs.append(Q("p3_23", "For the family group photos at Linh's wedding, when were they scheduled and why did they have to be on the lawn?",
                "Straight after the ceremony, 4:00-4:30 pm; on the flat lawn rather than the stone steps because Ben's grandmother Nora uses a wheelchair.",
                "factual_retention",
                [ev(f, s, [L_time(f, s)]),
                 ev(INBOX, "4:00 - 4:30 family formals straight after the ceremony (list below)", [L_msg(INBOX, "CAJx7Nq2e-linh-0220@mail.outlook.com")])],
                cap(S + ["multi_file_retrieval"], ["speech_transcription", "email_parsing"], ["cross_reference"])))

    f = "Recordings/New Recording 14.m4a"
    s1 = "Next service is due at ninety five thousand kilometres or in October, whichever comes first."
    s2 = "Front brake pads are at about thirty percent, so replace them at the next service."
    qs.append(Q("p3_24", "When's the car next due for a service, and what will need replacing then?",
                "At 95,000 km or in October, whichever comes first; the front brake pads (about 30% left) should be replaced then. (Odometer was 81,400 at the April service.)",
                "factual_retention", [ev(f, s1, [L_time(f, s1)]), ev(f, s2, [L_time(f, s2)])],
                cap(S, ["speech_transcription"], ["direct_lookup"])))

    f = "Recordings/Grace and Marco venue walkthrough.wav"
    s = "Supplier parking is behind the kitchen, and the gate code is one nine eight seven."
    qs.append(Q("p3_25", "What's the code for the supplier car park gate at the Daylesford venue?",
                "1987 - supplier parking is behind the kitchen at Wombat Hill Estate.",
                "factual_retention", [ev(f, s, [L_time(f, s)])],
                cap(S, ["speech_transcription"], ["direct_lookup"])))

    f = "Recordings/Memo 2025-06-16 tax.m4a"
    s = "The car logbook came out at sixty four percent business use over the twelve weeks."
    qs.append(Q("p3_26", "What business-use percentage did my car logbook work out to?",
                "64% business use over the 12-week logbook period.",
                "factual_retention", [ev(f, s, [L_time(f, s)])],
                cap(S, ["speech_transcription"], ["direct_lookup"])))

    f = "Recordings/2025-03-06 Hartley reshoot.wav"
    s = "Fiona needs both by Friday the seventh because the new website goes live on Tuesday the eleventh."
    qs.append(Q("p3_27", "By when did the law firm need the two partners' reshoot photos, and why the rush?",
                "By Friday 7 March, because their new website went live on Tuesday 11 March.",
                "factual_retention", [ev(f, s, [L_time(f, s)])],
                cap(S, ["speech_transcription"], ["direct_lookup"])))

    f1, f2 = SCREEN_REC, "Business/scripts/export_presets.json"
    s1 = "This is my web gallery export. Resize to fit, long edge two thousand and forty eight pixels."
    s2 = "The file settings are JPEG at quality seventy six, in s R G B."
    qs.append(Q("p3_28", "What size and JPEG quality do I export client web galleries at?",
                "Long edge 2048 px, JPEG quality 76, sRGB (72 ppi, sharpened for screen, no watermark on client galleries).",
                "factual_retention",
                [ev(f1, s1, [L_time(f1, s1)]), ev(f1, s2, [L_time(f1, s2)]),
                 ev(f2, '"web_gallery": { … "long_edge_px": 2048, … "quality": 76,', [L_lines(f2, '"web_gallery": {', '"quality": 76')])],
                cap(S + ["multi_file_retrieval"], ["speech_transcription", "video_frames", "json_parsing"], ["cross_reference"])))

    f = "Recordings/parkrun debrief 2025-05-31.wav"
    s = "Next goal is under twenty four minutes by the end of July, so I'm adding the Thursday hill session with the Merri Runners."
    qs.append(Q("p3_29", "After my parkrun personal best, what extra training did I decide to add, and what's the target?",
                "The Thursday hill session with the Merri Runners, aiming for under 24 minutes by the end of July (the PB on 31 May was 24:41).",
                "factual_retention", [ev(f, s, [L_time(f, s)])],
                cap(S, ["speech_transcription"], ["direct_lookup"])))

    # --- mailboxes ------------------------------------------------------------------------------------
    qs.append(Q("p3_30", "How many guests did Linh and Ben end up having at the wedding?",
                "112 guests (9 of them children), down from the 'about 130' in their first enquiry.",
                "factual_retention",
                [ev(INBOX, "we've finally locked it in at 112 guests", [L_msg(INBOX, "CAJx7Nq2e-linh-0220@mail.outlook.com")])],
                cap(S, ["email_parsing"], ["direct_lookup", "version_resolution"])))

    qs.append(Q("p3_31", "What did my accountant charge me for doing the March-quarter BAS?",
                "$275 + GST, i.e. $302.50 (Rhonda Pellegrini, e-mail of 19 May 2025; paid 22 May).",
                "factual_retention",
                [ev(INBOX, "My fee for this quarter is $275 + GST ($302.50)", [L_msg(INBOX, rid)])],
                cap(S, ["email_parsing"], ["direct_lookup"])))

    qs.append(Q("p3_32", "When can I go and collect my glazed pots from the studio?",
                "From Thursday 12 June, 4-7 pm, or Saturday 14 June, 10 am-1 pm; they are on shelf C, and anything left after 28 June goes in the seconds box.",
                "factual_retention",
                [ev(INBOX, "Pick-up is from Thursday 12 June, 4 - 7 pm, or Saturday 14 June, 10 am - 1 pm.", [L_msg(INBOX, "cc-0602-glaze@claycorner.com.au")])],
                cap(S, ["email_parsing"], ["direct_lookup"])))

    qs.append(Q("p3_33", "What turnaround did I promise the real estate agency for their listing photos?",
                "Edited images in the shared Dropbox by 9 am the next business day (agreed with Priya Raman in October 2024, alongside $220 + GST per standard shoot).",
                "factual_retention",
                [ev(ARCH, "Delivery: edited images in the shared Dropbox by 9 am the next business day", [L_msg(ARCH, "hr-agree-1002@harcourtrowe.com.au")])],
                cap(S, ["email_parsing"], ["direct_lookup"])))

    qs.append(Q("p3_34", "If I had to claim on my camera gear insurance, what excess would I pay?",
                "$250 per claim, or $500 for theft from an unattended vehicle (Lens & Shutter policy LS-PP-118204, sum insured $18,500).",
                "factual_retention",
                [ev(ARCH, "Excess: $250 per claim ($500 for theft from an unattended vehicle)", [L_msg(ARCH, "ls-renew-2024@lensandshutter.com.au")])],
                cap(S, ["email_parsing"], ["direct_lookup", "entity_disambiguation"])))

    # --- the long newsletter -----------------------------------------------------------------------------
    f = "Mail/Saved/Melbourne Photo Collective - May 2025 digest.eml"
    qs.append(Q("p3_35", "Has the deadline for the photography awards I'm entering moved?",
                "Yes: after the entry website outage, entries now close at 11:59 pm on Sunday 13 July 2025 instead of 29 June, and the $25 early-bird price runs until 15 June (per the May club digest; the conditions PDF, the April digest and my calendar still say 29 June).",
                "factual_retention",
                [ev(f, "the closing date for entries is now extended to 11:59 pm Sunday 13 July 2025 (it was 29 June)", [])],
                cap(S + ["long_document_search"], ["email_parsing"], ["direct_lookup", "version_resolution"])))
    qs.append(Q("p3_36", "Is there a discount code I can use at the print lab over winter?",
                "MPC15-WINTER: 15% off all prints and framing at ProLab Collingwood until 31 August 2025 (the autumn code MPC10-AUTUMN has expired).",
                "factual_retention",
                [ev(f, "15% off all prints and framing over winter: use the code MPC15-WINTER at checkout … until 31 August 2025", [])],
                cap(S + ["long_document_search"], ["email_parsing"], ["direct_lookup", "version_resolution"])))
    qs.append(Q("p3_37", "When and where does the photo club's June walk start?",
                "Saturday 21 June at 9 am, at the Rose Street Artists' Market entrance in Fitzroy (winter solstice photowalk, finishing around 11:30 on Brunswick Street).",
                "factual_retention",
                [ev(f, "Saturday 21 June: winter solstice photowalk through Fitzroy. Meet at 9 am at the Rose Street Artists' Market entrance", [])],
                cap(S + ["long_document_search", "temporal_filter"], ["email_parsing"], ["direct_lookup", "entity_disambiguation"])))

    # --- vault --------------------------------------------------------------------------------------------
    f = "Vault/Clients/Nguyen-Walsh wedding.md"
    qs.append(Q("p3_38", "Which band played at Linh and Ben's reception?",
                "The Velvet Lanes (Sam ate with them).",
                "factual_retention", [ev(f, "Band: The Velvet Lanes - Sam eats with them", [L_lines(f, "Band: The Velvet Lanes")])],
                cap(S, ["markdown_reading"], ["direct_lookup"])))

    f1, f2 = "Vault/Gear/Lens wishlist.md", "Money/Household budget 2025.xlsx"
    qs.append(Q("p3_39", "Which lens is top of my wish list, what does it cost, and how much have I put aside for it so far?",
                "The Sony FE 35mm f/1.4 GM, about $2,099; the budget's sinking fund for it has $640 saved of a $2,100 target (as at 31/05/2025).",
                "factual_retention",
                [ev(f1, "1. **Sony FE 35mm f/1.4 GM** - about $2,099.", [L_lines(f1, "1. **Sony FE 35mm")]),
                 ev(f2, "New lens (Sony 35 GM) | 2100 | 640", [L_rows(f2, "Sinking funds", ["New lens"])])],
                cap(S + ["multi_file_retrieval"], ["markdown_reading", "spreadsheet_reading"], ["cross_reference"])))

    f = "Vault/Daily/2025-06-17.md"
    qs.append(Q("p3_40", "It's Friday 20 June. What did I get through last Tuesday?",
                "On Tuesday 17 June I culled the Saltbush Yoga gallery (212 to 64, 20 edited), paid the car rego for 12 months ($932.30), booked Biscuit's wash and nail trim at Pawsome Coburg for Saturday 28 June at 9 am, and signed the new lease ($610/wk from 1 July).",
                "factual_retention",
                [ev(f, "Culled the Saltbush gallery: 212 -> 64, edited 20. … Signed the new lease in the portal ($610/wk from 1 July).",
                    [L_lines(f, "Culled the Saltbush gallery", "Signed the new lease")])],
                cap(S + ["temporal_filter"], ["markdown_reading"], ["temporal_reasoning", "direct_lookup"])))

    # --- profiling ------------------------------------------------------------------------------------------
    f = "Vault/Personal/Parkrun log.md"
    rows = [p for p in PARKRUN]
    qs.append(Q("p3_41", "What does a typical Saturday morning look like for me?",
                "parkrun at Merri Creek at 8:00 am most Saturdays (17 runs logged this year, skipped for weddings and travel), running roughly 24:40-27:00.",
                "profiling",
                [ev(f, "Saturdays 8:00 am. Goal for 2025: sub-25 (done 3 May!), then sub-24 by end of July.", [L_lines(f, "Saturdays 8:00 am")])],
                cap(S, ["markdown_reading"], ["pattern_induction"]), profiling_type="behavioral_patterns"))

    f2 = "Pictures/Screenshots/Screenshot 2025-05-31 at 9.02.44 am.png"
    first, last = f"| {au_date(day(rows[0][0]))} | #{rows[0][1]} | {rows[0][2]} | {rows[0][3]} |", f"| {au_date(day(rows[-1][0]))} | #{rows[-1][1]} | {rows[-1][2]} | {rows[-1][3]} |"
    qs.append(Q("p3_42", "How have my parkrun times changed since the start of the year?",
                "Steadily faster: 26:52 on 4 January, under 26 by late February, first sub-25 (24:58) on 3 May, and a PB of 24:41 on 31 May; 24:47 on 14 June.",
                "profiling",
                [ev(f, first + " … " + last, [L_lines(f, first, last)]),
                 ev(f2, "24:41 … NEW PB!", [])],
                cap(S + ["multi_file_retrieval"], ["markdown_reading", "image_ocr"], ["trend_analysis", "temporal_reasoning"]),
                profiling_type="retrospective"))

    f1, f2, f3 = "Vault/Clients/Harcourt & Rowe.md", BIZ(4), BIZ(5)
    qs.append(Q("p3_43", "How long does the real estate agency usually take to pay me after I invoice them?",
                "About two weeks: I invoice on the first business day of the month on 14-day terms and they pay around the 15th-17th (e.g. INV-2025-008 issued 1 April, paid 15 April; INV-2025-009 issued 1 May, paid 16 May).",
                "profiling",
                [ev(f1, "One invoice a month, 14-day terms -> they pay around the 15th-17th", [L_lines(f1, "One invoice a month")]),
                 ev(f2, csv_row(f2, "INV-2025-008"), [L_csv(f2, "INV-2025-008")]),
                 ev(f3, csv_row(f3, "INV-2025-009"), [L_csv(f3, "INV-2025-009")])],
                cap(S + ["multi_file_retrieval"], ["markdown_reading", "csv_parsing"], ["pattern_induction", "temporal_reasoning"]),
                profiling_type="behavioral_patterns"))

    m8, m9 = "tb-inv-2025-008@tahliabrennan.com.au", "tb-inv-2025-009@tahliabrennan.com.au"
    qs.append(Q("p3_44", "When in the month do I send the agency their invoice?",
                "On the first business day of each month, first thing in the morning (about 9:20-9:50 am) - e.g. Tue 1 April and Thu 1 May 2025; the calendar has a recurring 'Invoice Harcourt & Rowe' slot at 9:00.",
                "profiling",
                [ev(CAL, "SUMMARY:Invoice Harcourt & Rowe (last month's shoots) … RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1",
                    [L_event(CAL, "invoice-hr@tahliabrennan.com.au")]),
                 ev(SENT, msg_date(SENT, m8) + " … Subject: Invoice INV-2025-008 - March shoots", [L_msg(SENT, m8)]),
                 ev(SENT, msg_date(SENT, m9) + " … Subject: Invoice INV-2025-009 - April shoots", [L_msg(SENT, m9)])],
                cap(S + ["multi_file_retrieval", "metadata_search"], ["calendar_parsing", "email_parsing"], ["pattern_induction", "temporal_reasoning"]),
                profiling_type="scheduling"))

    f1, f2 = "Vault/Workflows/Wedding edit workflow.md", "Business/scripts/rename_raws.py"
    qs.append(Q("p3_45", "Walk me through what I do with a wedding between the last dance and the couple getting their gallery.",
                "Ingest the same night and rename the RAWs with rename_raws.py (date_client_sequence); make three backup copies before formatting cards; cull in Photo Mechanic (about 1 in 5, then down to 550-700); edit in Lightroom from the 'TB Warm Film v3' preset; send a 30-image sneak peek within 72 hours; export with the web gallery preset; upload to Pixieset with a short-name+MMDD password; deliver within 6 weeks and ask for album favourites.",
                "profiling",
                [ev(f1, "Ingest the same night: run `Business/scripts/rename_raws.py` … Deliver within 6 weeks; ask them to heart their album picks.",
                    [L_lines(f1, "1. Ingest the same night", "8. Deliver within 6 weeks")]),
                 ev(f2, "Rename camera RAW files after ingest: YYYYMMDD_client_NNNN.ARW (sequence in capture order).", [L_lines(f2, "Rename camera RAW files")])],
                cap(S + ["multi_file_retrieval"], ["markdown_reading", "code_reading"], ["procedure_synthesis"]),
                profiling_type="workflows"))

    f1, f2 = "Vault/Workflows/Backup routine.md", "Business/scripts/backup.sh"
    qs.append(Q("p3_46", "How do I keep my photo files backed up?",
                "3-2-1: the working SSD in the MacBook, a nightly 1:00 am rsync to the Synology NAS 'kookaburra', then rclone to the Backblaze B2 bucket tb-photo-archive; cards aren't formatted until all three copies exist and are kept 2 weeks after delivery; a test restore each quarter.",
                "profiling",
                [ev(f1, "Copy 2: Synology NAS \"kookaburra\" in the hall cupboard - `backup.sh` mirrors the SSD every night at 1:00 am … Copy 3: Backblaze B2 bucket `tb-photo-archive`",
                    [L_lines(f1, "Copy 1:", "Once a quarter")]),
                 ev(f2, "# Runs from launchd at 01:00 … rclone sync \"$NAS\" b2:tb-photo-archive/Jobs", [L_lines(f2, "# Runs from launchd", "rclone sync")])],
                cap(S + ["multi_file_retrieval"], ["markdown_reading", "code_reading"], ["procedure_synthesis"]),
                profiling_type="workflows"))

    f1, f2 = "Vault/Clients/Hartley Legal.md", "Pictures/Jobs/Hartley - lighting diagram.png"
    qs.append(Q("p3_47", "What lens and camera settings do I like for corporate headshots?",
                "The 85mm f/1.8 stopped down to f/4 at 1/200 s, ISO 200, against a grey backdrop with one AD200 in a 90 cm octa and a foam-board fill; I always use the 85 for headshots.",
                "profiling",
                [ev(f1, "85mm f/1.8 at f/4, 1/200 s, ISO 200. Always the 85 for headshots", [L_lines(f1, "85mm f/1.8 at f/4")]),
                 ev(f2, "Camera: 85mm f/1.8 @ f/4, 1/200 s, ISO 200", [])],
                cap(S + ["multi_file_retrieval"], ["markdown_reading", "image_ocr"], ["pattern_induction"]),
                profiling_type="preferences"))

    f1, f2, f3 = "Vault/Daily/2025-02-12.md", "Vault/Daily/2025-03-27.md", BIZ(3)
    qs.append(Q("p3_48", "Where do I tend to get my coffee on shoot mornings?",
                "Tinker & Loaf in Brunswick - a flat white on the way to most shoots (charges of $5.50-$11 on shoot days in the business account).",
                "profiling",
                [ev(f1, "Flat white at Tinker & Loaf at 7:15", [L_lines(f1, "Flat white at Tinker & Loaf")]),
                 ev(f2, "Coffee from Tinker & Loaf first, obviously", [L_lines(f2, "Coffee from Tinker & Loaf")]),
                 ev(f3, csv_row(f3, "06/03/2025,TINKER"), [L_csv(f3, "06/03/2025,TINKER")])],
                cap(S + ["multi_file_retrieval"], ["markdown_reading", "csv_parsing"], ["pattern_induction"]),
                profiling_type="preferences"))

    f = "Vault/Biscuit.md"
    qs.append(Q("p3_49", "What's Biscuit's usual walking routine?",
                "Every morning 6:15-7:00 along the Merri Creek trail from Albion St to CERES and back, off lead at Kirkdale Street Park; a lap of the block after dinner; Dev does the morning walk on his days off.",
                "profiling",
                [ev(f, "Every morning 6:15-7:00: Merri Creek trail from Albion St down to CERES and back, off lead at Kirkdale Street Park.",
                    [L_lines(f, "Every morning 6:15-7:00", "Dev does the morning walk")])],
                cap(S, ["markdown_reading"], ["pattern_induction"]), profiling_type="behavioral_patterns"))

    f2 = "Vault/Personal/Mum - Bendigo visits.md"
    qs.append(Q("p3_50", "How often do I go up to see Mum, and how does the day usually go?",
                "Once a month, on the last Sunday: leave about 8:30, two hours up the Calder to Bendigo, lunch at Mum's (11-3 in the calendar), Biscuit comes, fuel at Kyneton on the way home, back by 5.",
                "profiling",
                [ev(CAL, "SUMMARY:Lunch at Mum's - Bendigo … RRULE:FREQ=MONTHLY;BYDAY=-1SU", [L_event(CAL, "bendigo-mum@tahliabrennan.com.au")]),
                 ev(f2, "Last Sunday of the month I drive up for lunch - leave ~8:30, Calder Fwy, about 2 hours; home by 5.", [L_lines(f2, "Last Sunday of the month")])],
                cap(S + ["multi_file_retrieval"], ["calendar_parsing", "markdown_reading"], ["recurrence_expansion", "pattern_induction"]),
                profiling_type="scheduling"))

    qa, qb, qc = "tb-q-nw@tahliabrennan.com.au", "tb-q-lb@tahliabrennan.com.au", "tb-q-pm@tahliabrennan.com.au"
    qs.append(Q("p3_51", "How far ahead of a wedding do I usually send the couple my questionnaire?",
                "Eight weeks out: 17 January 2025 for Linh and Ben (15 March), 28 February for Grace and Marco (26 April), and 16 August 2024 for Priya and Aaron (12 October 2024).",
                "profiling",
                [ev(SENT, msg_date(SENT, qa) + " … Only eight weeks to go!", [L_msg(SENT, qa)]),
                 ev(SENT, msg_date(SENT, qb) + " … Only eight weeks to go!", [L_msg(SENT, qb)]),
                 ev(ARCH, msg_date(ARCH, qc) + " … Only eight weeks to go!", [L_msg(ARCH, qc)])],
                cap(S + ["multi_file_retrieval", "metadata_search"], ["email_parsing"], ["pattern_induction", "temporal_reasoning"]),
                profiling_type="scheduling"))

    f1, f2 = BIZ(3), "Mail/Saved/ProLab order ready.eml"
    qs.append(Q("p3_52", "Which lab do I normally get my prints made at?",
                "ProLab in Collingwood (77 Smith St) - regular charges in the business account, e.g. $112.00 on 20/03/2025, and the mini-session prints (order PL-55120, $156.00) in May.",
                "profiling",
                [ev(f1, csv_row(f1, "20/03/2025,PROLAB"), [L_csv(f1, "20/03/2025,PROLAB")]),
                 ev(f2, "Your order PL-55120 (28 x 8x10 lustre prints, mini sessions) is ready at 77 Smith St, Collingwood.", [])],
                cap(S + ["multi_file_retrieval"], ["csv_parsing", "email_parsing"], ["pattern_induction"]),
                profiling_type="preferences"))

    f1, f2 = "Business/Price list 2024.pdf", "Business/Price list 2025.pdf"
    qs.append(Q("p3_53", "How did my prices change from last year to this year?",
                "Everything went up: wedding collections A $3,200 to $3,400, B $4,000 to $4,200, C $5,100 to $5,400; mini sessions $250 to $290; family sessions $480 to $520; corporate half day $1,500 to $1,650 and retouching $22 to $25 per image; property shoots $200 to $220 and twilights $80 to $90 (+GST).",
                "profiling",
                [ev(f1, "8 hours, online gallery, sneak peek $4,000.00 … 20 minutes, 10 edited images (autumn & spring) $250.00 … up to 25 images, next-day delivery $200.00 +GST",
                    [L_page(f1, "Investment 2024")]),
                 ev(f2, "8 hours, online gallery, sneak peek $4,200.00 … 20 minutes, 10 edited images (autumn & spring) $290.00 … up to 25 images, next-day delivery $220.00 +GST",
                    [L_page(f2, "Investment 2025")])],
                cap(S + ["multi_file_retrieval"], ["pdf_text_and_tables"], ["comparison", "trend_analysis"]),
                profiling_type="retrospective"))

    fa, fb, fc = ("Business/Quotes/Quote - Nguyen-Walsh wedding v1.docx", "Business/Quotes/Quote - Nguyen-Walsh wedding v2.docx",
                  "Business/Quotes/Quote - Nguyen-Walsh wedding FINAL.docx")
    qs.append(Q("p3_54", "How did my quote for Linh and Ben change between the first draft and what they signed?",
                "v1 (28 Oct 2024): 8 hours, $4,200. v2 (4 Nov): added Sam as second shooter for 6 hours, $4,650. FINAL (11 Nov): 9 hours plus the sparkler exit, $4,850 - accepted that day, deposit $1,200.",
                "profiling",
                [ev(fa, "Collection B (8 hrs) | $4,200.00", [L_page(fa, "Collection B (8 hrs)")]),
                 ev(fb, "Second shooter (Sam Okafor) for 6 hours … Collection B+ (8 hrs) | $4,650.00", [L_page(fb, "Collection B+ (8 hrs)")]),
                 ev(fc, "Sparkler exit coverage (coverage extended to 9:30 pm) … Collection B+ (9 hrs) | $4,850.00", [L_page(fc, "Sparkler exit")])],
                cap(S + ["multi_file_retrieval"], ["document_parsing"], ["version_resolution", "comparison"]),
                profiling_type="retrospective"))

    f = BIZ(4)
    subs = ["BACKBLAZE B2", "DROPBOX PLUS", "ADOBE CREATIVE CLOUD", "PIXIESET.COM", "TELSTRA MOBILE"]
    qs.append(Q("p3_55", "Which subscriptions come out of the business account every month, and roughly when?",
                "Backblaze B2 (~$9.80, 1st), Dropbox Plus ($19.99, 3rd), Adobe Creative Cloud ($87.99, 9th), Pixieset ($41.23, 15th) and the Telstra business mobile ($65.00, 22nd).",
                "profiling",
                [ev(f, " … ".join(csv_row(f, s) for s in subs), [L_csv(f, s) for s in subs])],
                cap(S, ["csv_parsing"], ["pattern_induction", "aggregation"]), profiling_type="behavioral_patterns"))

    f1, f2 = "Business/BAS/BAS workings Q2 FY25 (Oct-Dec 2024).xlsx", "Business/BAS/BAS workings Q3 FY25 (Jan-Mar 2025).xlsx"
    qs.append(Q("p3_56", "How did my takings and GST bill in the March quarter compare with the December quarter?",
                f"Almost the same turnover: ${q3['g1']:,.2f} in Jan-Mar 2025 vs ${q2['g1']:,.2f} in Oct-Dec 2024, but more GST credits (${q3['b1']:,.2f} vs ${q2['b1']:,.2f}), so net GST fell from ${q2['net']:,.2f} to ${q3['net']:,.2f}.",
                "profiling",
                [ev(f1, f"G1 Total sales (incl. GST) | {q2['g1']:g} … Net GST payable (1A - 1B) | {q2['net']:g}", [L_rows(f1, "Summary", ["G1 Total sales", "Net GST payable"])]),
                 ev(f2, f"G1 Total sales (incl. GST) | {q3['g1']:g} … Net GST payable (1A - 1B) | {q3['net']:g}", [L_rows(f2, "Summary", ["G1 Total sales", "Net GST payable"])])],
                cap(S + ["multi_file_retrieval"], ["spreadsheet_reading"], ["comparison", "arithmetic"]),
                profiling_type="retrospective"))

    qs.append(Q("p3_57", "What are my fixed weekly slots on Monday mornings and Wednesday evenings?",
                "Monday 9:00-11:30 am is my admin block (bank feed, e-mail, bookings - no shoots before 11:30); Wednesday 6:30-8:30 pm is Wheel 2 pottery at Clay Corner in Northcote (term 2, 30 April - 18 June).",
                "profiling",
                [ev(CAL, "SUMMARY:Admin block … RRULE:FREQ=WEEKLY;BYDAY=MO", [L_event(CAL, "admin-block@tahliabrennan.com.au")]),
                 ev(CAL, "SUMMARY:Pottery - Wheel 2 (Clay Corner) … RRULE:FREQ=WEEKLY;BYDAY=WE", [L_event(CAL, "pottery-t2@tahliabrennan.com.au")])],
                cap(S, ["calendar_parsing"], ["recurrence_expansion", "pattern_induction"]), profiling_type="scheduling"))

    f1, f2 = "Vault/Personal/Pottery.md", "Pictures/Camera Roll/IMG_2071.png"
    qs.append(Q("p3_58", "Which glazes do I tend to go for in pottery?",
                "Celadon (blue-green) - my bowls - and tenmoku on the outside of mugs with clear inside; the last firing was 4 celadon bowls and 2 tenmoku mugs.",
                "profiling",
                [ev(f1, "Glazes I like: celadon (blue-green), tenmoku on the outside of mugs.", [L_lines(f1, "Glazes I like")]),
                 ev(f2, "4 bowls - celadon … 2 mugs - tenmoku outside / clear in", [])],
                cap(S + ["multi_file_retrieval"], ["markdown_reading", "image_ocr"], ["pattern_induction"]),
                profiling_type="preferences"))

    f = "apps/Shootbook/shootbook.db"
    qs.append(Q("p3_59", "How do I usually set the passwords on client galleries?",
                "Client short name plus the shoot date as MMDD: nw-0315 (Nguyen-Walsh, 15 March), hartley-0212 (Hartley Legal, 12 February), saltbush-0605 (Saltbush Yoga, 5 June), gm-0426.",
                "profiling",
                [ev(f, "2025-03-15 … nw-0315 … 2025-02-12 … hartley-0212 … 2025-06-05 … saltbush-0605",
                    [L_shoot("nw-0315"), L_shoot("2025-02-12 | 08:00"), L_shoot("saltbush-0605")])],
                cap(S, ["database_query"], ["pattern_induction"]), profiling_type="workflows"))

    f1, f2 = PERS(4), "Money/Household budget 2025.xlsx"
    qs.append(Q("p3_60", "How do Dev and I split the household money?",
                "Dev transfers $1,400 into my Everyday Saver on the 1st of each month for the house, and I pay the rent ($1,150 a fortnight) from that account; in the budget rent, groceries, power and Biscuit are joint, internet, the car and pottery are mine, and streaming is Dev's.",
                "profiling",
                [ev(f1, csv_row(f1, "TRANSFER FROM D KAPOOR") + " … " + csv_row(f1, "04/04/2025,BARKLY"), [L_csv(f1, "TRANSFER FROM D KAPOOR"), L_csv(f1, "04/04/2025,BARKLY")]),
                 ev(f2, "Rent ($575/wk) | 2491.67 | Joint … Internet (Aussie Broadband) | 89 | Tahlia … Streaming | 30 | Dev",
                    [L_rows(f2, "Monthly", ["Rent ($575/wk)", "Internet", "Streaming"])])],
                cap(S + ["multi_file_retrieval"], ["csv_parsing", "spreadsheet_reading"], ["pattern_induction"]),
                profiling_type="behavioral_patterns"))
    return qs


# ========================================================================================
# --check: every gold path exists and every evidence string is in the file's extracted text
# ========================================================================================

WNS = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
SNS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def norm(s: str) -> str:
    return " ".join(s.split())


def docx_text(path: Path) -> str:
    with zipfile.ZipFile(path) as z:
        root = ET.fromstring(z.read("word/document.xml"))
    out = []
    for el in root.find(WNS + "body"):
        if el.tag == WNS + "p":
            out.append("".join(t.text or "" for t in el.iter(WNS + "t")))
        elif el.tag == WNS + "tbl":
            for tr in el.iter(WNS + "tr"):
                out.append(" | ".join("".join(t.text or "" for t in tc.iter(WNS + "t")) for tc in tr.iter(WNS + "tc")))
    return "\n".join(out)


def xlsx_text(path: Path) -> str:
    out = []
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        sst = []
        if "xl/sharedStrings.xml" in names:
            sst = ["".join(t.text or "" for t in si.iter(SNS + "t")) for si in ET.fromstring(z.read("xl/sharedStrings.xml")).iter(SNS + "si")]
        for name in sorted(n for n in names if n.startswith("xl/worksheets/sheet")):
            for row in ET.fromstring(z.read(name)).iter(SNS + "row"):
                cells = []
                for c in row.iter(SNS + "c"):
                    t, v = c.get("t"), c.find(SNS + "v")
                    if t == "s":
                        cells.append(sst[int(v.text)])
                    elif t == "inlineStr":
                        cells.append("".join(x.text or "" for x in c.iter(SNS + "t")))
                    else:
                        cells.append(v.text if v is not None else "")
                out.append(" | ".join(cells))
    return "\n".join(out)


def pdf_text(path: Path) -> str:
    a = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout
    b = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True).stdout
    return a + "\n" + b


def mbox_messages(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    msgs = {}
    for chunk in re.split(r"(?m)^From - .*\n", text)[1:]:
        mid = re.search(r"(?mi)^Message-ID: (<[^>]+>)", chunk)
        msgs[mid.group(1)] = chunk
    return msgs


def extracted(rel: str, locs: list[dict]) -> str:
    path = HOME / rel
    kind = REG.get(rel, {}).get("kind")
    ext = ext_of(rel)
    if ext == "pdf":
        return pdf_text(path)
    if ext == "docx":
        return docx_text(path)
    if ext == "xlsx":
        return xlsx_text(path)
    if ext in ("png",):
        return "\n".join(REG[rel]["text"])
    if ext in ("wav", "mp3", "m4a", "mp4"):
        return "\n".join([s for _, _, s in REG[rel]["segments"]] + REG[rel].get("text", []))
    if ext == "mbox":
        msgs = mbox_messages(path)
        wanted = [l["position"]["message_id"] for l in locs if l.get("unit") == "message"]
        if not wanted:
            raise SystemExit(f"mbox evidence without a message locator: {rel}")
        return "\n".join(msgs[w] for w in wanted)
    if ext == "db":
        con = sqlite3.connect(path)
        rows = []
        for l in locs:
            p = l["position"]
            r = con.execute(f"SELECT * FROM {p['table']} WHERE rowid = ?", (p["rowid"],)).fetchone()
            rows.append(" | ".join("" if v is None else str(v) for v in r))
        con.close()
        return "\n".join(rows)
    raw = path.read_text(encoding="utf-8")
    if ext == "ics":
        raw = raw.replace("\r\n ", "").replace("\\,", ",").replace("\\;", ";")
    return raw


def check_questions(qs: list[dict]) -> int:
    bad = 0
    for q in qs:
        for rel in q["file_path"]:
            if not (HOME / rel).exists():
                print(f"{q['id']}: gold file missing: {rel}")
                bad += 1
        for e in q["evidence"]:
            text = norm(extracted(e["file_path"], e["evidence_locator"]))
            for piece in e["evidence_text"].split(" … "):
                if norm(piece) not in text:
                    print(f"{q['id']} {e['evidence_id']}: not found in {e['file_path']}: {piece!r}")
                    bad += 1
    return bad


def check_pdfs() -> int:
    """Every PDF page's recorded lines must come out of pdftotext in order (prose in default
    mode, Courier table rows in -layout mode) - as in the orla-devlin generator."""
    bad = 0
    for rel, info in REG.items():
        if info["kind"] != "pdf":
            continue
        for n, lines in enumerate(info["pages"], start=1):
            for mode in ("default", "layout"):
                args = ["pdftotext"] + (["-layout"] if mode == "layout" else []) + ["-f", str(n), "-l", str(n), str(HOME / rel), "-"]
                flat = norm(subprocess.run(args, capture_output=True, text=True).stdout)
                pos = 0
                for line, mono in zip(lines, info["mono"][n - 1]):
                    if mode == "default" and mono:
                        continue
                    want = norm(line)
                    i = flat.find(want, pos)
                    if i < 0:
                        print(f"PDF check ({mode}): {rel} p.{n}: not found in order: {want!r}")
                        bad += 1
                        break
                    pos = i + len(want)
    return bad


# ========================================================================================
# The tuning / test split (fixed before anyone looks at results)
# ========================================================================================

def stratum(q: dict) -> tuple:
    mods = set(q["file_modality"])
    types = set(q["file_type"])
    if mods & {"audio", "video"}:
        m = "audio/video"
    elif "image" in mods:
        m = "image"
    elif "mbox" in types or "eml" in types:
        m = "mail"
    elif "document" in mods:
        m = "document"
    else:
        m = "text"
    return (q["QA_type"], "multi" if q["file_number"] > 1 else "single", m)


def make_split(qs: list[dict]) -> dict:
    r = random.Random(SPLIT_SEED)
    by_id = {q["id"]: q for q in qs}
    groups: dict[tuple, list[str]] = {}
    for q in qs:
        groups.setdefault(stratum(q), []).append(q["id"])
    halves: dict[str, list[str]] = {"tuning": [], "test": []}
    toggle = 0
    for key in sorted(groups):
        ids = sorted(groups[key])
        r.shuffle(ids)
        for i in ids:
            q = by_id[i]

            def load(side: str) -> tuple:
                same = [by_id[j] for j in halves[side]]
                return (sum(1 for x in same if stratum(x) == key),
                        sum(1 for x in same if stratum(x)[:2] == key[:2]),
                        sum(1 for x in same if x["QA_type"] == q["QA_type"]),
                        len(same))
            a, b = load("tuning"), load("test")
            side = "tuning" if a < b else "test" if b < a else ("tuning", "test")[toggle % 2]
            if a == b:
                toggle += 1
            halves[side].append(i)
    if len(halves["tuning"]) != len(halves["test"]):
        raise SystemExit(f"split is uneven: {len(halves['tuning'])} / {len(halves['test'])}")
    return {"seed": SPLIT_SEED,
            "rule": "strata = (QA_type, single/multi-file, modality class: audio/video > image > mail > document > text). "
                    "Strata in sorted order; ids inside a stratum sorted then shuffled with random.Random(seed); each id goes "
                    "to the half with fewer ids of the same stratum, then of the same (QA_type, single/multi), then of the same "
                    "QA_type, then fewer ids overall; a full tie alternates tuning/test.",
            "tuning": sorted(halves["tuning"]), "test": sorted(halves["test"]),
            "strata": {" / ".join(k): sorted(v) for k, v in sorted(groups.items())}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="check gold paths, evidence strings and PDF text order")
    args = ap.parse_args()
    if HOME.exists():
        shutil.rmtree(HOME)
    HOME.mkdir()
    build_all()
    set_mtimes()
    questions = build_questions()
    ids = [q["id"] for q in questions]
    if len(ids) != len(set(ids)):
        raise SystemExit("duplicate question ids")
    QA_PATH.write_text(json.dumps(questions, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    split = make_split(questions)
    SPLIT_PATH.write_text(json.dumps(split, indent=1) + "\n", encoding="utf-8")
    files = sorted(MTIMES)
    size = sum((HOME / f).stat().st_size for f in files)
    print(f"wrote {len(files)} files ({size / 1e6:.2f} MB) to {HOME}, {len(questions)} questions to {QA_PATH.name}, split to {SPLIT_PATH.name}")
    for w in WARNINGS:
        print("warning:", w)
    if args.check:
        if not have("pdftotext"):
            print("pdftotext missing: cannot check")
            return 1
        bad_q = check_questions(questions)
        n_ev = sum(len(q["evidence"]) for q in questions)
        print(f"evidence check: {len(questions)} questions, {n_ev} evidence items:", "ok" if not bad_q else f"{bad_q} problem(s)")
        bad_p = check_pdfs()
        print(f"PDF check: {sum(1 for v in REG.values() if v['kind'] == 'pdf')} PDFs:", "ok" if not bad_p else f"{bad_p} problem(s)")
        return 1 if (bad_q or bad_p) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
