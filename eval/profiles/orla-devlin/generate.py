#!/usr/bin/env python3
"""Generate the "Orla Devlin" synthetic personal profile (home/) and its questions (qa.json).

Python 3.11 standard library only. External programs: ffmpeg (PNG screenshots, audio
resampling) and espeak-ng (voice notes; skipped with a warning when missing).

Deterministic: every random choice comes from a named, seeded generator, every timestamp
inside zips / PDFs / e-mails / calendars is fixed, and file mtimes are set with os.utime
to dates that fit the story. Re-running gives byte-identical files.

    python3 generate.py            # writes home/ (from scratch) and qa.json
    python3 generate.py --check    # also checks every PDF page with pdftotext
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
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import wave
import zipfile
from email.header import Header
from email.utils import formataddr
from pathlib import Path
from xml.sax.saxutils import escape as xesc
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
HOME = HERE / "home"
QA_PATH = HERE / "qa.json"
TZ = ZoneInfo("Europe/Dublin")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

# relpath -> datetime (local, Europe/Dublin) used for the file's mtime
MTIMES: dict[str, dt.datetime] = {}
# relpath -> structured content used to resolve evidence locators
REG: dict[str, dict] = {}
WARNINGS: list[str] = []


def rng(name: str) -> random.Random:
    """A generator of its own for every purpose: adding content elsewhere never shifts it."""
    return random.Random("orla-devlin/" + name)


def when(s: str) -> dt.datetime:
    """'2026-03-04 18:20' (Europe/Dublin wall clock) -> aware datetime."""
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
    ps = "".join(f'<a:p><a:r><a:rPr lang="en-IE" sz="{size}"{b} dirty="0"/><a:t>{xesc(t)}</a:t></a:r></a:p>' for t in paras) or "<a:p/>"
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


def eml(rel: str, *, frm: str, to: list[str], subject: str, date: str, body: str, msgid: str,
        cc: list[str] | None = None, reply_to_id: str | None = None, references: list[str] | None = None,
        attachments: list[tuple[str, str]] | None = None) -> None:
    h = [f"From: {frm}", f"To: {', '.join(to)}"]
    if cc:
        h.append(f"Cc: {', '.join(cc)}")
    h += [f"Date: {rfc_date(date)}", f"Subject: {subject_header(subject)}", f"Message-ID: <{msgid}>"]
    if reply_to_id:
        h.append(f"In-Reply-To: <{reply_to_id}>")
        h.append("References: " + " ".join(f"<{r}>" for r in (references or [reply_to_id])))
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
    put(rel, text, date)


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
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Devlin household//Calendar export 3.2//EN",
             "CALSCALE:GREGORIAN", f"X-WR-CALNAME:{ics_escape(name)}", "X-WR-TIMEZONE:Europe/Dublin"]
    if desc:
        lines.append(f"X-WR-CALDESC:{ics_escape(desc)}")
    for e in events:
        lines.append("BEGIN:VEVENT")
        lines.append(f"UID:{e['uid']}")
        lines.append(f"DTSTAMP:{e.get('stamp', '20260515T090000Z')}")
        if e.get("allday"):
            lines.append(f"DTSTART;VALUE=DATE:{e['start'].replace('-', '')}")
            lines.append(f"DTEND;VALUE=DATE:{e['end'].replace('-', '')}")
        else:
            s = e["start"].replace("-", "").replace(":", "").replace(" ", "T") + "00"
            t = e["end"].replace("-", "").replace(":", "").replace(" ", "T") + "00"
            lines.append(f"DTSTART;TZID=Europe/Dublin:{s}")
            lines.append(f"DTEND;TZID=Europe/Dublin:{t}")
        if e.get("rrule"):
            lines.append(f"RRULE:{e['rrule']}")
        for x in e.get("exdates", []):
            lines.append(f"EXDATE;TZID=Europe/Dublin:{x.replace('-', '').replace(':', '').replace(' ', 'T')}00")
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

def png_screenshot(rel: str, size: tuple[int, int], items: list[dict], mtime: str, boxes: list[tuple] = ()) -> None:
    """items: {"text", "x", "y", "size", "bold", "color"}; boxes: (x, y, w, h, colour)."""
    w, h = size
    with tempfile.TemporaryDirectory() as tmp:
        filters = []
        for (x, y, bw, bh, colour) in boxes:
            filters.append(f"drawbox=x={x}:y={y}:w={bw}:h={bh}:color={colour}:t=fill")
        for i, it in enumerate(items):
            tf = Path(tmp) / f"t{i}.txt"
            tf.write_text(it["text"], encoding="utf-8")
            font = FONT_BOLD if it.get("bold") else FONT
            filters.append(f"drawtext=fontfile={font}:textfile={tf}:expansion=none:fontsize={it.get('size', 24)}"
                           f":fontcolor={it.get('color', 'black')}:x={it['x']}:y={it['y']}")
        out = Path(tmp) / "out.png"
        cmd = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"color=c=white:s={w}x{h}", "-frames:v", "1",
               "-vf", ",".join(filters), "-pix_fmt", "gray", "-bitexact", str(out)]
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
    put(rel, buf.getvalue(), mtime)
    REG[rel] = {"kind": "wav", "segments": segs, "duration": len(pcm) / 2 / rate}
    return True


# ========================================================================================
# The persona
# ========================================================================================

ORLA = addr("Orla Devlin", "orla.devlin@mailbox.ie")
ORLA_W = addr("Orla Devlin", "o.devlin@claddaghcc.ie")
FERGAL = addr("Fergal Devlin", "fergal@devlinjoinery.ie")
ADDRESS = "22 Ard Caisleáin, Knocknacarra, Galway H91 X2Y7"

# facts shared between files and questions
FACTS: dict[str, object] = {}


# ----------------------------------------------------------------------------------------
# Admin: house, car, health, cat
# ----------------------------------------------------------------------------------------

def corrib_invoice(rel: str, no: str, date: str, lines: list[tuple[str, int, float]], notes: list[str], next_due: str, mtime: str) -> None:
    d = day(date)
    pdf = PDF(f"Invoice {no}", "Corrib Heating & Plumbing Ltd", mtime, "Corrib Heating invoicing 4.1")
    pdf.line("CORRIB HEATING & PLUMBING LTD", 16, True)
    pdf.line("Unit 7, Ballybrit Business Park, Galway H91 K2P0   Tel 091 770 412   VAT No. IE 9816423W", 8.5)
    pdf.space(10)
    pdf.line("INVOICE", 14, True)
    pdf.row(["Invoice no:", no, "Date:", d.strftime("%d/%m/%Y")], [56, 130, 380, 420])
    pdf.row(["Customer:", "Orla & Fergal Devlin"], [56, 130])
    pdf.row(["", ADDRESS], [56, 130])
    pdf.row(["Job:", "Annual gas boiler service - Vaillant ecoTEC plus 831 combi (kitchen)"], [56, 130])
    pdf.row(["Engineer:", "Piotr Nowak (RGII reg. 10482)"], [56, 130])
    pdf.space(10)
    xs = [56, 330, 380, 470]
    rows = []
    subtotal = 0.0
    for desc, qty, price in lines:
        rows.append([desc, str(qty), f"{price:.2f}", f"{qty * price:.2f}"])
        subtotal += qty * price
    pdf.table(["Description", "Qty", "Unit price", "Amount"], rows, xs, right={1, 2, 3})
    vat = round(subtotal * 0.135 + 1e-9, 2)
    total = subtotal + vat
    pdf.row(["", "", "Subtotal", f"{subtotal:.2f}"], xs, right={3})
    pdf.row(["", "", "VAT 13.5%", f"{vat:.2f}"], xs, right={3})
    pdf.row(["", "", "TOTAL DUE", f"€{total:.2f}"], xs, bold=True, right={3})
    pdf.space(10)
    pdf.line("Engineer's notes", 11, True)
    for n in notes:
        pdf.para(n)
    pdf.line(f"Next service due: {next_due}", 10, True)
    pdf.space(8)
    pdf.para(f"Payment by bank transfer within 14 days please. IBAN IE29 AIBK 9311 5212 3456 78, reference {no}. "
             "Thank you for your business.", 9)
    pdf.save(rel, mtime)
    FACTS[f"boiler_total_{d.year}"] = f"{total:.2f}"


def build_admin() -> None:
    corrib_invoice("Admin/House/Corrib Heating invoice 2026-03-04.pdf", "CH-26-0318", "2026-03-04",
                   [("Annual boiler service and safety check", 1, 110.00),
                    ("Flue gas analysis (printout left with customer)", 1, 0.00),
                    ("Replacement condensate trap", 1, 18.50)],
                   ["Condensate trap cracked and weeping onto the floor of the cupboard; replaced.",
                    "System pressure topped up to 1.2 bar. CO 38 ppm, CO2 9.1% - within manufacturer limits.",
                    "Fergal let us in; customer to bleed the upstairs radiators (landing radiator cold at top)."],
                   "March 2027", "2026-03-04 17:40")
    corrib_invoice("Admin/House/Corrib Heating invoice 2025-03-06.pdf", "CH-25-0291", "2025-03-06",
                   [("Annual boiler service and safety check", 1, 105.00),
                    ("Magnetic system filter clean", 1, 15.00)],
                   ["Filter had a lot of sludge - recommend inhibitor top-up at next service.",
                    "System pressure 1.0 bar, CO 41 ppm - within limits."],
                   "March 2026", "2025-03-06 16:05")

    # electricity bill (distractor for the direct-debit question)
    pdf = PDF("WPG Energy electricity bill", "WPG Energy", "2026-02-19 07:10", "WPG billing")
    pdf.footer = "WPG Energy DAC, Registered in Ireland No. 551207"
    pdf.line("WPG Energy", 18, True)
    pdf.line("Your electricity bill", 13, True)
    pdf.row(["Account holder:", "Orla Devlin"], [56, 170])
    pdf.row(["Supply address:", ADDRESS], [56, 170])
    pdf.row(["Account number:", "2044187"], [56, 170])
    pdf.row(["Bill date:", "19 February 2026"], [56, 170])
    pdf.row(["Billing period:", "14 December 2025 - 13 February 2026 (62 days)"], [56, 170])
    pdf.space(8)
    pdf.line("Summary", 12, True)
    xs = [56, 360, 470]
    pdf.table(["Item", "", "Amount"], [
        ["Standing charge 62 days @ €0.6912", "", "€42.85"],
        ["Day units 812 kWh @ €0.3108", "", "€252.37"],
        ["Night units 301 kWh @ €0.1697", "", "€51.08"],
        ["PSO levy", "", "€0.00"],
        ["Microgeneration export credit 96 kWh @ €0.185", "", "-€17.76"],
        ["Government electricity credit", "", "-€125.00"],
        ["VAT @ 9%", "", "€18.29"],
        ["Total for this period", "", "€221.83"],
    ], xs, right={2})
    pdf.para("You are on Level Pay. Your monthly direct debit of €118.00 will continue to be collected on or around the "
             "20th of each month. Your Level Pay balance after this bill is €14.17 in credit.")
    pdf.new_page()
    pdf.line("Your usage", 12, True)
    pdf.table(["Period", "Day kWh", "Night kWh"], [
        ["Dec 2024 - Feb 2025", "861", "322"], ["Feb - Apr 2025", "702", "280"], ["Apr - Jun 2025", "455", "230"],
        ["Jun - Aug 2025", "402", "221"], ["Aug - Oct 2025", "520", "251"], ["Oct - Dec 2025", "733", "289"],
        ["Dec 2025 - Feb 2026", "812", "301"]], [56, 250, 360], right={1, 2})
    pdf.para("Your export meter recorded 96 kWh exported to the grid this period from your solar PV system.")
    pdf.para("Energy saving tip: a hot water immersion left on for an hour a day costs about €180 a year.")
    pdf.save("Admin/House/WPG electricity bill 2026-02.pdf", "2026-02-21 20:14")

    # NCT
    pdf = PDF("NCT test certificate", "National Car Testing Service", "2026-02-11 10:52")
    pdf.line("NATIONAL CAR TEST - CERTIFICATE OF ROADWORTHINESS", 13, True)
    for k, v in [("Registration", "181-G-4472"), ("Make / model", "Skoda Octavia 1.6 TDI"), ("Colour", "Grey"),
                 ("Test centre", "Galway (Carrowbrowne)"), ("Test date", "11/02/2026"), ("Odometer", "98,412 km"),
                 ("Result", "PASS"), ("Certificate valid until", "11/02/2028")]:
        pdf.row([k + ":", v], [56, 200])
    pdf.space(8)
    pdf.para("Advisory items (not a fail): nearside rear tyre tread 2.1 mm - replace soon; slight play in "
             "offside front drop link.")
    pdf.save("Admin/Car/NCT certificate 2026-02-11.pdf", "2026-02-11 12:30")

    pdf = PDF("Motor insurance renewal", "Atlantic Mutual Insurance", "2026-04-14 09:00")
    pdf.line("Atlantic Mutual Insurance - Motor renewal notice", 13, True)
    for k, v in [("Policyholder", "Orla Devlin"), ("Policy number", "AMI-M-7730915"), ("Vehicle", "181-G-4472 Skoda Octavia"),
                 ("Named driver", "Fergal Devlin"), ("Renewal date", "14 May 2026"), ("No claims discount", "9 years (protected)"),
                 ("Cover", "Comprehensive, windscreen cover, EU cover 90 days"), ("Annual premium", "€625.20"),
                 ("Monthly direct debit", "12 x €52.10")]:
        pdf.row([k + ":", v], [56, 200])
    pdf.space(6)
    pdf.para("Last year's premium was €598.80. If your details are unchanged you need do nothing - your policy renews "
             "automatically and your monthly direct debit continues.")
    pdf.save("Admin/Car/motor insurance renewal 2026.pdf", "2026-04-30 21:02")

    # health (Orla's physio, Mam's hospital letter)
    pdf = PDF("Westside Physio letter", "Westside Physiotherapy", "2026-02-18 18:00")
    pdf.line("Westside Physiotherapy Clinic", 14, True)
    pdf.line("Seamus Quirke Road, Galway   091 588 230", 9)
    pdf.space(10)
    pdf.para("18 February 2026")
    pdf.para("Re: Orla Devlin (DOB 14/09/1981) - right knee")
    pdf.para("Dear Orla, thank you for attending today. Findings are consistent with patellofemoral pain, aggravated by "
             "the steps down to the water at Blackrock and by long periods standing in class. There is no sign of "
             "ligament injury.")
    pdf.para("Plan: two further sessions (25 February and 11 March, both 16:30). Home exercises daily: straight-leg "
             "raises 3 x 12, wall sits 3 x 30 s, clamshells 3 x 15 each side. Sea swimming is fine - keep using the "
             "rail on the steps and avoid kicking hard with the right leg for two weeks.")
    pdf.para("Kind regards, Eamon Lyons MISCP, Chartered Physiotherapist")
    pdf.save("Admin/Health/Westside Physio letter 2026-02-18.pdf", "2026-02-18 19:12")

    pdf = PDF("Outpatient appointment", "Suck Valley Regional Hospital", "2026-04-22 11:00")
    pdf.line("Suck Valley Regional Hospital, Ballinasloe", 14, True)
    pdf.line("Orthopaedic Outpatients Department", 11)
    pdf.space(8)
    for k, v in [("Patient", "Bridget Fahy"), ("Date of birth", "02/11/1952"), ("MRN", "0481127"),
                 ("Appointment", "Thursday 14 May 2026 at 11:15"), ("Clinic", "Clinic 3, Ground Floor, Orthopaedics"),
                 ("Consultant", "Mr Hassan Malik")]:
        pdf.row([k + ":", v], [56, 170])
    pdf.space(6)
    pdf.para("Please bring a list of your current medications and arrive 15 minutes early to register. If you cannot "
             "attend, please phone 090 964 8200 so that your appointment can be given to another patient.")
    pdf.save("Admin/Health/Mam/Suck Valley outpatient appointment 2026-05-14.pdf", "2026-04-28 20:40")

    pdf = PDF("Vaccination record - Pangur", "Salthill Veterinary Clinic", "2025-04-22 17:20")
    pdf.line("Salthill Veterinary Clinic - Vaccination record", 13, True)
    pdf.row(["Patient:", "Pangur (cat, DSH, neutered male, born 2019, black)"], [56, 150])
    pdf.row(["Owner:", "Orla Devlin, " + ADDRESS], [56, 150])
    pdf.row(["Microchip:", "372 100 400 912 554"], [56, 150])
    pdf.space(6)
    pdf.table(["Date", "Vaccine", "Batch", "Vet", "Next due"], [
        ["10/04/2024", "Feline RCP + FeLV", "RC2291", "A. Nolan", "10/04/2025"],
        ["22/04/2025", "Feline RCP booster", "RC3107", "A. Nolan", "22/04/2026"]], [56, 130, 260, 330, 420])
    pdf.para("Weight 22/04/2025: 5.1 kg. Dental: mild tartar, review next visit.")
    pdf.save("Admin/Pangur/vaccination record.pdf", "2025-04-22 18:05")

    # heating schedule exported from the smart thermostat (one period per line)
    def periods(ps):
        return ",\n".join(f'          {{"from": "{a}", "to": "{b}", "temp_c": {t}, "label": "{lab}"}}' for a, b, t, lab in ps)
    zones = [
        ("Downstairs", [("06:30", "08:15", 20.5, "morning"), ("08:15", "16:30", 16.0, "away"),
                        ("16:30", "22:30", 21.0, "evening"), ("22:30", "06:30", 15.0, "night")],
                       [("08:00", "11:00", 20.5, "morning"), ("11:00", "17:00", 18.5, "day"),
                        ("17:00", "23:00", 21.0, "evening"), ("23:00", "08:00", 15.0, "night")]),
        ("Upstairs", [("06:15", "07:45", 19.0, "morning"), ("07:45", "20:00", 15.0, "away"),
                      ("20:00", "22:30", 18.5, "bedtime"), ("22:30", "06:15", 16.0, "night")],
                     [("07:30", "10:00", 19.0, "morning"), ("10:00", "20:00", 16.0, "day"),
                      ("20:00", "23:00", 18.5, "bedtime"), ("23:00", "07:30", 16.0, "night")]),
    ]
    out = ['{', '  "device": "Hearth H2 smart thermostat",', '  "home": "Ard Caisleain",',
           '  "exported_at": "2026-01-18T21:33:05+00:00",', '  "boost_minutes": 60,', '  "frost_protection_c": 7.0,',
           '  "zones": [']
    zs = []
    for name, wk, we in zones:
        zs.append("\n".join([
            "    {", f'      "name": "{name}",', '      "mode": "schedule",', '      "schedule": {',
            '        "weekdays": [', periods(wk), "        ],", '        "weekend": [', periods(we), "        ]",
            "      }", "    }"]))
    out.append(",\n".join(zs))
    out += ["  ],", '  "hot_water": {', '    "weekdays": [{"from": "06:00", "to": "07:00"}, {"from": "17:30", "to": "18:30"}],',
            '    "weekend": [{"from": "08:00", "to": "09:30"}]', "  },",
            '  "away_mode": {"enabled": false, "temp_c": 12.0}', "}"]
    text = "\n".join(out) + "\n"
    json.loads(text)
    put("Admin/House/heating schedule.json", text, "2026-01-18 21:33")

    build_solar_logs()


def build_solar_logs() -> None:
    """Inverter log: a reading every 15 minutes in daylight, a daily summary, and events."""
    for month, days, seed in (("2026-03", 31, "solar-03"), ("2026-04", 30, "solar-04")):
        r = rng(seed)
        lines = [f"{month}-01 00:00:02 INFO  logger: solis-logger 2.7.1 started, inverter S6-GR1P3K SN 3K1C26A0417"]
        for d in range(1, days + 1):
            date = f"{month}-{d:02d}"
            cloud = r.uniform(0.25, 1.0)
            if month == "2026-04":
                sunrise, sunset = 6.9 - d * 0.03, 20.2 + d * 0.03
            else:
                sunrise, sunset = 7.6 - d * 0.04, 18.6 + d * 0.04
            fault = month == "2026-04" and d == 17
            day_lines: list[tuple[str, str]] = []
            energy = peak = 0.0
            q = math.ceil(sunrise * 4)
            while q / 4 < sunset:
                t = q / 4
                hh, mm = divmod(q * 15, 60)
                frac = (t - sunrise) / (sunset - sunrise)
                p = max(3.0 * math.sin(math.pi * frac) * cloud * r.uniform(0.75, 1.0), 0.0)
                v = 236 + r.uniform(0, 8)
                if fault and 13.9 <= t <= 14.6:
                    p = 0.0
                if fault and t == 13.75:
                    v = 251.8
                energy += p * 0.25
                peak = max(peak, p)
                stamp = f"{hh:02d}:{mm:02d}:00"
                day_lines.append((stamp, f"{date} {stamp} INFO  inverter: P_ac={p:.2f}kW E_today={energy:.1f}kWh V_grid={v:.1f}V"))
                q += 1
            if fault:
                day_lines += [
                    ("13:52:10", f"{date} 13:52:10 ERROR grid: fault GRID_OVERVOLTAGE (V_grid=258.9V > 253.0V), output disconnected"),
                    ("13:52:11", f"{date} 13:52:11 WARN  inverter: entering standby, reconnect after 300 s of normal grid voltage"),
                    ("14:39:12", f"{date} 14:39:12 INFO  grid: voltage normal for 300 s, output reconnected (offline 47 min)")]
            if month == "2026-03" and d == 9:
                day_lines += [("10:02:44", f"{date} 10:02:44 WARN  comms: wifi dongle lost connection, buffering readings"),
                              ("10:09:31", f"{date} 10:09:31 INFO  comms: wifi reconnected, 3 buffered readings uploaded")]
            day_lines.sort()
            lines += [l for _, l in day_lines]
            lines.append(f"{date} 21:00:00 INFO  daily: date={date} E_today={energy:.1f}kWh peak={peak:.2f}kW")
        put(f"Admin/House/solar/inverter-{month}.log", "\n".join(lines) + "\n", f"{month}-{days:02d} 21:00")


# ----------------------------------------------------------------------------------------
# Finance: current account exports and the household budget
# ----------------------------------------------------------------------------------------

BANK_LINES: dict[str, dict[str, list[int]]] = {}


def build_finance() -> None:
    balance = 2315.40
    r = rng("bank")
    for month, ndays in (("2026-02", 28), ("2026-03", 31), ("2026-04", 30)):
        y, m = int(month[:4]), int(month[5:])
        tx: list[tuple[dt.date, str, float, float]] = []  # date, desc, out, in

        def add(d, desc, out=0.0, inn=0.0):
            tx.append((dt.date(y, m, d), desc, round(out, 2), round(inn, 2)))
        add(1, "DD ATLANTIC HOME LOANS MTG 0093318", 1236.58)
        add(2, "DD EIR BROADBAND 8812450", 65.00)
        add(5, "NETFLIX.COM", 15.99)
        add(7, "DD VODAFONE IRELAND 3390112", 40.00)
        add(14, "DD ATLANTIC MUTUAL INS", 52.10)
        add(28 if m != 2 else 27, "TFR FROM FERGAL DEVLIN HOUSE", 0, 1500.00)
        add(24, "ATLANTIC VISA CARD PAYMENT", r.randint(38000, 72000) / 100)
        add(28 if m != 2 else 27, "TFR TO SAVINGS 40022871", 1500.00)
        # child benefit: first Tuesday
        d = dt.date(y, m, 1)
        while d.weekday() != 1:
            d += dt.timedelta(days=1)
        add(d.day, "DSP CHILD BENEFIT", 0, 280.00)
        # salary: every second Thursday from 2026-01-08
        d = dt.date(2026, 1, 8)
        while d <= dt.date(y, m, ndays):
            if d.month == m:
                add(d.day, "DEPT OF EDUCATION SALARY", 0, 1912.36)
            d += dt.timedelta(days=14)
        # Aoife's dancing: first Thursday
        d = dt.date(y, m, 1)
        while d.weekday() != 3:
            d += dt.timedelta(days=1)
        add(d.day, "SCOIL RINCE CLADAIGH", 48.00)
        # energy level pay on the 20th
        gas = {2: 96.00, 3: 121.60, 4: 108.30}[m]
        add(20, "DD WPG ELEC LEVELPAY 2044187", 118.00)
        add(20, "DD WPG GAS LEVELPAY 2044190", gas)
        FACTS[f"gas_dd_{m}"] = gas
        # weekly shop: Saturdays at Dunnes (skip the Santiago Saturday)
        away = {dt.date(2026, 3, 4), dt.date(2026, 3, 5)} | {dt.date(2026, 4, k) for k in range(3, 9)}
        for dd in range(1, ndays + 1):
            date = dt.date(y, m, dd)
            wd = date.weekday()
            if date in away:
                continue
            if wd == 5:
                add(dd, "DUNNES STORES KNOCKNACARRA", r.randint(14800, 19600) / 100)
            if wd == 2 and r.random() < 0.8:
                add(dd, "LIDL GALWAY HEADFORD RD", r.randint(1800, 4500) / 100)
            if wd == 4 and r.random() < 0.75:
                add(dd, "HARBOUR FISH BAR SALTHILL", r.randint(3200, 4150) / 100)
            if wd == 6 and r.random() < 0.3:
                add(dd, "SUPERVALU SALTHILL", r.randint(900, 2600) / 100)
            if wd in (0, 3) and r.random() < 0.18:
                add(dd, r.choice(["APPLEGREEN BOTHAR NA DTREABH", "CIRCLE K SALTHILL"]), r.randint(5500, 7800) / 100)
        # one-offs
        extra = {
            2: [(11, "NCTS GALWAY", 55.00), (18, "WESTSIDE PHYSIOTHERAPY", 60.00), (25, "WESTSIDE PHYSIOTHERAPY", 60.00),
                (8, "HANLEYS PHARMACY BALLINASLOE", 23.40), (22, "HANLEYS PHARMACY BALLINASLOE", 19.15),
                (13, "SALTHILL BOOKS", 18.99), (24, "ZEST HAIR STUDIO", 65.00)],
            3: [(6, "TFR CORRIB HEATING LTD CH-26-0318", 145.85), (11, "WESTSIDE PHYSIOTHERAPY", 60.00),
                (12, "SALTHILL MEDICAL CENTRE", 65.00), (8, "HANLEYS PHARMACY BALLINASLOE", 23.40),
                (22, "HANLEYS PHARMACY BALLINASLOE", 31.75), (27, "APARTAMENTOS VILAR SL", 428.40),
                (26, "DECATHLON GALWAY", 89.97), (17, "CNOC NA CARRAIGE GAA", 30.00)],
            4: [(3, "SHANNON AIRPORT CAR PARK", 63.00), (5, "CAIXABANK ATM SANTIAGO EUR", 200.00),
                (6, "MERCADO DE ABASTOS SANTIAGO", 34.60), (7, "TABERNA O GALO AZUL", 118.50),
                (19, "HANLEYS PHARMACY BALLINASLOE", 23.40), (23, "SALTHILL BOOKS", 24.99),
                (11, "SMYTHS TOYS GALWAY", 39.99), (14, "ZEST HAIR STUDIO", 65.00)],
        }[m]
        for dd, desc, amt in extra:
            add(dd, desc, amt)
        tx.sort(key=lambda t: (t[0], t[3] == 0, t[1]))
        rows = []
        lines_of: dict[str, list[int]] = {}
        for i, (date, desc, out, inn) in enumerate(tx):
            balance = round(balance - out + inn, 2)
            rows.append([date.strftime("%d/%m/%Y"), desc, f"{out:.2f}" if out else "", f"{inn:.2f}" if inn else "", f"{balance:.2f}"])
            lines_of.setdefault(desc, []).append(i + 2)
        BANK_LINES[month] = lines_of
        write_csv(f"Admin/Finance/current account {month}.csv", ["Date", "Description", "Money out", "Money in", "Balance"],
                  rows, f"{y}-{m + 1:02d}-02 20:15" if m < 12 else "2027-01-02 20:15")

    # household budget: planned figures (the gas line is last year's level pay)
    monthly = [["Item", "Planned €/month", "Notes"],
               ["Mortgage", 1236.58, "Atlantic Home Loans, fixed to 2028"],
               ["Electricity (WPG level pay)", 118.00, "reviewed each September"],
               ["Gas (WPG level pay)", 96.00, "2025-26 plan"],
               ["Broadband (eir)", 65.00, ""], ["Mobiles", 40.00, "Vodafone family plan"],
               ["Car insurance", 52.10, "renews 14 May"], ["Groceries", 780.00, "Dunnes on Saturdays + top-ups"],
               ["Takeaway Fridays", 150.00, "Harbour Fish Bar / pizza"], ["Aoife - Irish dancing", 48.00, ""],
               ["Cian - GAA", 30.00, "March only"], ["Savings - Santiago fund", 150.00, "until March"],
               ["Total", Formula("SUM(B2:B12)", 2765.68), ""]]
    bills = [["Bill", "Account", "Day", "Method"],
             ["Mortgage", "0093318", 1, "Direct debit"], ["eir broadband", "8812450", 2, "Direct debit"],
             ["Vodafone", "3390112", 7, "Direct debit"], ["Atlantic Mutual (car)", "AMI-M-7730915", 14, "Direct debit"],
             ["WPG electricity", "2044187", 20, "Direct debit"], ["WPG gas", "2044190", 20, "Direct debit"],
             ["Bin charges (Barna Waste)", "BW-55120", 1, "Card, quarterly"], ["TV licence", "TVL 2219033", 9, "Card, yearly (September)"]]
    fund = [["Date", "Saved €", "Running total €", "Note"]]
    total = 0
    for i, (d, amt, note) in enumerate([("2025-10-31", 150, "flights booked 21 Nov from this"), ("2025-11-30", 300, "flights"),
                                         ("2025-12-31", 100, "Christmas!"), ("2026-01-31", 150, ""), ("2026-02-28", 150, ""),
                                         ("2026-03-31", 150, "apartment balance paid 27 Mar")]):
        total += amt
        fund.append([d, amt, total, note])
    save_xlsx("Admin/Finance/household budget 2026.xlsx", [("Monthly", monthly), ("Bills", bills), ("Santiago fund", fund)],
              "Household budget 2026", "Orla Devlin", "2025-12-29 21:10", "2026-03-31 22:04", shared=True)


# ----------------------------------------------------------------------------------------
# Inbox: e-mail (threads, bulletins, bookings, family)
# ----------------------------------------------------------------------------------------

STAFF = {
    "ruth": addr("Ruth Kilbride", "principal@claddaghcc.ie"),
    "colm": addr("Colm Breathnach", "c.breathnach@claddaghcc.ie"),
    "declan": addr("Declan Moran", "d.moran@claddaghcc.ie"),
    "yvonne": addr("Yvonne Staunton", "y.staunton@claddaghcc.ie"),
    "shane": addr("Shane Gilmartin", "s.gilmartin@claddaghcc.ie"),
    "nora": addr("Nora Keane", "n.keane@claddaghcc.ie"),
    "gearoid": addr("Gearóid Lally", "g.lally@claddaghcc.ie"),
    "staff": addr("CCC Staff", "staff@claddaghcc.ie"),
}
COACH = addr("Niall Keady", "bookings@corribcoachhire.ie")
HOSTEL = addr("Linen Quarter Hostel - Groups", "groups@linenquarterhostel.co.uk")
MAEVE = addr("Maeve Concannon", "maeve.concannon@mailbox.ie")
SINEAD = addr("Sinéad Ruane", "sineadruane@mailbox.ie")
PADRAIG = addr("Pádraig Fahy", "padraig.fahy@mailbox.ie")
LORCAN = addr("Lorcan Hehir", "lorcan@galwaybaysingers.ie")
LUCIA = addr("Lucía Pardo", "lucia.pardo@westsideadulted.ie")


def build_inbox() -> None:
    I = "Inbox/"
    # --- coach quote thread (three messages; the last one is the final price) -------------
    eml(I + "2026-01-12 Belfast TY trip - coach quote request.eml", frm=ORLA_W, to=[COACH],
        subject="Belfast TY trip - coach quote request", date="2026-01-12 16:21", msgid="20260112162100.ccc01@claddaghcc.ie",
        body="""Hi Niall,

Could you quote for a coach for our Transition Year trip to Belfast, please?

- Wednesday 4 March 2026: pick-up at Claddagh Community College, Galway, early morning (around 7:00),
  drop-offs in Belfast city centre during the day, hostel in the Linen Quarter that night.
- Thursday 5 March 2026: day in Belfast, possibly a run up to the Giant's Causeway in the morning,
  then back to Galway in the evening.
- 48 students and 4 staff, so a 53-seater.

The driver's accommodation would need to be included. Could you send it by the end of the week?

Thanks,
Orla Devlin
TY Coordinator, Claddagh Community College
""")
    eml(I + "2026-01-15 RE Belfast TY trip - coach quote request.eml", frm=COACH, to=[ORLA_W],
        subject="RE: Belfast TY trip - coach quote request", date="2026-01-15 10:42", msgid="cch.q2611.1@corribcoachhire.ie",
        reply_to_id="20260112162100.ccc01@claddaghcc.ie",
        body="""Hi Orla,

Thanks for the enquiry. Our price for the trip as described is:

  53-seat executive coach, 2 days, Galway - Belfast - Giant's Causeway - Galway
  Driver's overnight accommodation and subsistence included
  Total: €2,650.00 incl. VAT

This quote is valid for 30 days. A deposit of 20% secures the date.

Kind regards,
Niall Keady
Corrib Coach Hire, Oranmore
""")
    eml(I + "2026-02-03 RE Belfast TY trip - revised coach quote.eml", frm=COACH, to=[ORLA_W],
        cc=[STAFF["yvonne"]],
        subject="RE: Belfast TY trip - revised coach quote", date="2026-02-03 09:18", msgid="cch.q2611.2@corribcoachhire.ie",
        reply_to_id="20260112162100.ccc01@claddaghcc.ie",
        references=["20260112162100.ccc01@claddaghcc.ie", "cch.q2611.1@corribcoachhire.ie"],
        body="""Hi Orla,

As discussed on the phone, with the Giant's Causeway leg taken out and the coach staying in Belfast
city on the Thursday, the revised price is:

  53-seat executive coach, 2 days, Galway - Belfast - Galway
  Driver's overnight accommodation included
  Revised total: €2,480.00 incl. VAT

An early start on Wednesday 4 March is no problem - just confirm the departure time a week before.
The driver will be Gerry Fallon. Balance due 7 days after the trip.

Kind regards,
Niall Keady
Corrib Coach Hire, Oranmore

> Total: €2,650.00 incl. VAT
""")
    # --- hostel booking with terms attached ------------------------------------------------
    eml(I + "2026-01-20 Group booking confirmed - Linen Quarter Hostel.eml", frm=HOSTEL, to=[ORLA_W],
        subject="Group booking confirmed - LQH-G2603 - Claddagh Community College", date="2026-01-20 14:05",
        msgid="lqh-g2603-confirm@linenquarterhostel.co.uk",
        attachments=[("LQH group terms.txt", """LINEN QUARTER HOSTEL - SCHOOL GROUP TERMS
1. Deposit of GBP 400 secures the booking and is non-refundable within 14 days of arrival.
2. The balance is due 14 days before arrival.
3. Groups of under-18s must have at least one adult leader per 12 young people on site at all times.
4. Quiet hours 23:00 - 07:00. Leaders are responsible for their group.
5. Breakfast 07:00 - 09:30 in the basement cafe. Packed lunches GBP 6.50 if ordered 48 hours ahead.
6. Luggage can be left in the secure room on the day of departure until 17:00.
""")],
        body="""Dear Orla,

Thank you for your booking. Your group reservation is confirmed:

Group reference: LQH-G2603
Arrival: Wednesday 4 March 2026 (check-in from 15:00)
Departure: Thursday 5 March 2026 (check-out by 10:30)
Beds: 48 students in 8 six-bed dorms (4 female, 4 male), 4 leaders in 2 twin rooms
Rate: GBP 39.00 per student per night incl. breakfast; leaders free of charge
Total: GBP 1,872.00
Deposit received: GBP 400.00 (thank you)
Balance: GBP 1,472.00, due by 18 February 2026

Please send the rooming list and any dietary requirements at least 10 days before arrival. Our group
terms are attached.

Warm regards,
Aisling McCann
Groups Coordinator, Linen Quarter Hostel, 12 Adelaide Street, Belfast BT2 8GD
""")
    eml(I + "2026-02-10 Belfast trip - consent forms.eml", frm=ORLA_W, to=[STAFF["staff"]],
        subject="Belfast trip - consent forms", date="2026-02-10 08:12", msgid="20260210081200.ccc07@claddaghcc.ie",
        body="""Hi all,

TY tutors - could you collect any outstanding Belfast consent forms in registration this week? I still
need 6 (list on the TY noticeboard). The itinerary will go to parents once the bus times are final.

Thanks,
Orla
""")
    # --- weekly TY bulletins (Fridays after school) + a colleague's Monday bulletin -------
    bulletins = [
        ("2026-02-06 15:52", "5", "20260206155200.ty05@claddaghcc.ie",
         """Hi everyone,

TY bulletin for the week ahead:

- Mon 9 Feb: Gaisce Bronze - adventure journey planning, period 5, Room 14 (Shane).
- Tue 10 Feb: mini-company trade fair stalls to be booked with Yvonne by Friday.
- Wed 11 Feb: Belfast rooming lists due to me. Dietary needs too, please.
- Thu 12 Feb: Driver education, Bay 2 - the RSA trainer is in from 11:20.
- Work experience block 2 placements: 41 of 48 confirmed. Chase the last 7 please.

Have a good weekend,
Orla
"""),
        ("2026-02-13 16:05", "6", "20260213160500.ty06@claddaghcc.ie",
         """Hi everyone,

Short one before mid-term:

- Belfast balance payments: 9 still outstanding. I'll text parents on Monday.
- Mini-company trade fair is now Thursday 26 February in the GP hall.
- Gaisce log books to be signed off before Easter.
- No TY team meeting on Wednesday 25 February (Croke Park hour instead).

Enjoy the break,
Orla
"""),
        ("2026-02-27 15:47", "7", "20260227154700.ty07@claddaghcc.ie",
         """Hi everyone,

Belfast is next week!

- Bus leaves on Wednesday morning - see the final itinerary on the TY Teams page.
- Staff on the trip: me, Yvonne, Shane and Nora. Cover has been arranged by Colm.
- Trade fair raised €1,146 across 9 mini-companies. Well done all.
- Work experience block 2 starts Monday 23 March.

Thanks,
Orla
"""),
    ]
    for date, week, mid, body in bulletins:
        eml(I + f"{date[:10]} TY bulletin - week {week}.eml", frm=ORLA_W, to=[STAFF["staff"]],
            subject=f"TY bulletin - week {week}", date=date, msgid=mid, body=body)
    eml(I + "2026-02-09 1st year news.eml", frm=STAFF["gearoid"], to=[STAFF["staff"]],
        subject="1st year news - week of 9 Feb", date="2026-02-09 08:31", msgid="20260209083100.fy05@claddaghcc.ie",
        body="""Morning all,

1st year news: the Salthill field trip for 1st year Geography is moved to Tuesday 28 April (Orla's
classes). Homework club continues Mon-Thu until 16:30. Lockers: 14 keys still missing!

Gearóid
""")
    # --- Santiago bookings --------------------------------------------------------------
    eml(I + "2025-11-21 Your flights to Santiago de Compostela.eml",
        frm=addr("Atlántica Air", "noreply@atlantica-air.com"), to=[ORLA],
        subject="Your booking AQ7KZP is confirmed", date="2025-11-21 21:47", msgid="aq7kzp.confirm.20251121@atlantica-air.com",
        body="""Hello Orla,

Thanks for booking with Atlántica Air. Your booking reference is AQ7KZP.

Shannon (SNN) - Santiago de Compostela (SCQ), 4 passengers.

Your e-ticket receipt and full itinerary are in Manage Booking. Online check-in opens 48 hours before
departure. Remember that cabin bags must fit under the seat in front of you.

Buen viaje!
The Atlántica Air team
""")
    eml(I + "2025-11-22 Booking confirmation - Apartamento Rua do Vilar.eml",
        frm=addr("Apartamentos Vilar", "reservas@apartamentosvilar.es"), to=[ORLA],
        subject="Booking confirmation - Apartamento Rúa do Vilar 14 - 3 to 8 April 2026", date="2025-11-22 10:03",
        msgid="av-2026-0412@apartamentosvilar.es",
        body="""Dear Orla Devlin,

Your reservation is confirmed.

Property: Apartamento Rúa do Vilar 14, 2º izquierda, 15705 Santiago de Compostela
Entire apartment · 2 bedrooms · fully equipped kitchen · washing machine · self check-in
Guests: 2 adults, 2 children
Check-in: Friday 3 April 2026 from 15:00
Check-out: Wednesday 8 April 2026 by 11:00 (5 nights)

Price for 5 nights: €612.00 (including tourist tax and cleaning)
Paid today (30%): €183.60
Balance: €428.40, charged automatically on 27 March 2026

Check-in instructions with the key box code will be sent 7 days before arrival.

Un saludo,
Marta Castro
Apartamentos Vilar
""")
    eml(I + "2026-03-27 Check-in instructions - Rua do Vilar 14.eml",
        frm=addr("Apartamentos Vilar", "reservas@apartamentosvilar.es"), to=[ORLA],
        subject="Your stay at Rúa do Vilar 14 - check-in instructions", date="2026-03-27 09:30",
        msgid="av-2026-0412-checkin@apartamentosvilar.es",
        body="""Dear Orla,

The balance of €428.40 has been charged today, thank you. Your check-in instructions (address,
key box and Wi-Fi) are now in your guest area online. Please download them before you travel.

See you soon,
Marta
""")
    # --- family & friends -------------------------------------------------------------
    eml(I + "2026-04-28 Mam's appointment on the 14th.eml", frm=PADRAIG, to=[ORLA],
        subject="Mam's appointment on the 14th", date="2026-04-28 20:17", msgid="CAF-padraig-20260428@mailbox.ie",
        body="""Orla,

Mam got the letter for the ortho clinic in Suck Valley - Thursday 14 May at 11:15. I'm in Dublin that
whole day with work. Any chance you could take her? If you can't get the morning off I'll ask Noreen
next door. She's still saying the knee is grand, which it isn't.

She was asking if you're still coming down on the Sunday as usual.

P.
""")
    eml(I + "2026-05-05 Darkness into Light.eml", frm=MAEVE, to=[ORLA, SINEAD],
        subject="Darkness into Light on Saturday", date="2026-05-05 21:40", msgid="maeve-dil-20260505@mailbox.ie",
        body="""Girls,

DIL is Saturday - the Salthill walk starts 4:15am from the Prom (Seapoint end). Plan: walk, then a dip
at Blackrock as the sun comes up, then breakfast at mine. Bring a flask and your Dryrobe.

Maeve x
""")
    eml(I + "2026-02-24 Spring concert - tickets and running order.eml", frm=LORCAN, to=[addr("Galway Bay Singers", "members@galwaybaysingers.ie")],
        subject="Spring concert - tickets and running order", date="2026-02-24 22:05", msgid="gbs-2026-spring-01@galwaybaysingers.ie",
        body="""Dear singers,

Tickets for the spring concert are now on sale: €15, concession €10. Each member please aim to sell
ten - the ticket books are with Mairéad at the sign-in table.

Running order (provisional): Ave Maria (Biebl), The Parting Glass, Cantique de Jean Racine, Dúlamán,
Las Amarillas, Sanctus (Karl Jenkins), An Raibh Tú ag an gCarraig.

We will have an extra sectional for altos and tenors on Thursday 9 April. Details of call time and
dress to follow closer to the date.

Lorcan
""")
    eml(I + "2026-02-02 No Spanish class on Monday 16 February.eml", frm=LUCIA, to=[addr("Spanish 2 (Monday)", "spanish2-mon@westsideadulted.ie")],
        subject="No class on Monday 16 February", date="2026-02-02 18:02", msgid="wae-sp2-20260202@westsideadulted.ie",
        body="""¡Hola a todos!

Reminder: there is no class on Monday 16 February (mid-term break at the centre). We continue as
normal the following Monday. Deberes: unit 6, exercises 3 and 4 (el pretérito indefinido).

Lucía
""")
    eml(I + "2026-03-09 Parent-teacher meeting - 3rd year.eml",
        frm=addr("Corrib Valley College", "office@corribvalleycollege.ie"), to=[ORLA, FERGAL],
        subject="3rd year parent-teacher meeting - Thursday 19 March", date="2026-03-09 12:00", msgid="cvc-ptm-3y-2026@corribvalleycollege.ie",
        body="""Dear Parent/Guardian,

The 3rd year parent-teacher meeting will take place on Thursday 19 March from 16:00 to 19:00 in the
sports hall. Please book 5-minute slots with subject teachers on the school app by Monday 16 March.

Junior Cycle examinations begin on Wednesday 3 June. Study skills evening for parents: Tuesday 24 March
at 19:30.

Eileen Naughton, Deputy Principal
""")
    eml(I + "2026-03-20 Rusheen Bay NS - Easter newsletter.eml",
        frm=addr("Rusheen Bay NS", "office@rusheenbayns.ie"), to=[ORLA],
        subject="Easter newsletter", date="2026-03-20 13:10", msgid="rbns-easter-2026@rusheenbayns.ie",
        body="""Dear Parents,

School closes for Easter on Friday 27 March at 12:00 and reopens on Monday 13 April.
5th class: swimming lessons at Leisureland resume on Wednesday 15 April - please send togs and a towel.
Book fair: 20-24 April. Communion photos are available from the office.

Thank you for your support,
Ms Carmel Joyce, Principal
""")
    eml(I + "2026-04-30 Motor insurance - your renewal.eml",
        frm=addr("Atlantic Mutual Insurance", "renewals@atlanticmutual.ie"), to=[ORLA],
        subject="Your motor policy renews on 14 May", date="2026-04-30 07:55", msgid="ami-m-7730915-renewal-2026@atlanticmutual.ie",
        body="""Dear Orla,

Your motor policy AMI-M-7730915 renews on 14 May 2026. Your renewal documents are attached to your
online account. No action is needed if your details are unchanged.

Atlantic Mutual Insurance
""")
    eml(I + "2026-01-28 Mock exam timetable.eml", frm=STAFF["colm"], to=[STAFF["staff"]],
        subject="Mock exam timetable and invigilation", date="2026-01-28 13:25", msgid="ccc-mocks-2026@claddaghcc.ie",
        body="""Dear colleagues,

Mock exams for 3rd and 6th years run from Monday 2 February to Friday 13 February. The timetable and
the invigilation rota are on the staff Teams page. Teachers whose classes are sitting mocks will be
rostered for invigilation in place of those classes.

Marked scripts back to students by Friday 6 March please; marks into VSware by Friday 13 March.

Colm
""")
    eml(I + "2026-01-16 5th year Christmas results.eml", frm=STAFF["declan"], to=[ORLA_W],
        subject="5th year Christmas results + comments", date="2026-01-16 17:48", msgid="dm-5y-results-2026@claddaghcc.ie",
        attachments=[("5H2 comments draft.txt", """5H2 History - Christmas 2025 - report comments (draft)
Adam Burke - Solid essay structure; needs more named historians in the RSR.
Chloe Dempsey - Excellent source work. Keep it up.
Fiachra Joyce - Missed the exam (ill). Sitting it in January.
Grace Kenny - Good effort; timing let her down in Q3.
""")],
        body="""Orla,

Attached are my 5th year comments. Results spreadsheet is in the History folder (5H2 average 64%, a
bit down on last year). Can you glance over them before they go into VSware?

Declan
""")
    eml(I + "2026-05-11 Thank you - Belfast trip.eml", frm=addr("Deirdre Mulkerrin", "deirdre.mulkerrin@mailbox.ie"), to=[ORLA_W],
        subject="Thank you", date="2026-05-11 19:22", msgid="dm-thanks-20260511@mailbox.ie",
        body="""Dear Ms Devlin,

Just a note to say thank you to you and the team for the Belfast trip and for being so patient with
the payments. Ella hasn't stopped talking about the black taxi tour and the Crumlin Road Gaol.

Best wishes,
Deirdre Mulkerrin
""")


# ----------------------------------------------------------------------------------------
# Work (Claddagh Community College: History/Geography teacher and TY coordinator)
# ----------------------------------------------------------------------------------------

FIRST = ["Aoibhinn", "Cathal", "Niamh", "Darragh", "Saoirse", "Oisín", "Ciara", "Conor", "Róisín", "Eoin", "Clodagh",
         "Fionn", "Sorcha", "Tadhg", "Grace", "Jack", "Eimear", "Seán", "Aisling", "Luke", "Katie", "Adam", "Méabh",
         "Dylan", "Ellen", "Rory", "Nessa", "Cillian", "Lucy", "Ronan", "Aoibheann", "Fiachra", "Orlaith", "Colmán", "Laoise",
         "Evan", "Molly", "Diarmuid", "Caoimhe", "Shane", "Éabha", "Mateusz", "Zofia", "Senan", "Amira"]
LAST = ["Burke", "Keane", "Joyce", "Walsh", "Flaherty", "Conneely", "Mannion", "Greaney", "Fahy", "Kelly", "Naughton",
        "Moran", "Hynes", "Ó Cualáin", "Lydon", "Geraghty", "Costello", "Silke", "Mulryan", "Donnellan", "Kenny",
        "Coyne", "Nolan", "Kowalski", "Hession", "Rabbitte", "Qualter", "Fallon", "Cloonan", "Madden"]


def ty_students() -> list[tuple[str, str]]:
    r = rng("ty-students")
    names: list[str] = []
    first = list(FIRST)
    while len(names) < 45:
        n = f"{r.choice(first)} {r.choice(LAST)}"
        if n not in names and "Hession" not in n:
            names.append(n)
    names += ["Jamie Forde", "Ella Mulkerrin", "Rían Hession"]
    names.sort(key=lambda s: (s.split(" ", 1)[1], s))
    return [(n, "TY1" if i % 2 == 0 else "TY2") for i, n in enumerate(names)]


def itinerary(version: str, created: str, modified: str) -> Docx:
    label = {"v1": "DRAFT v1", "v2": "DRAFT v2", "FINAL": "FINAL"}[version]
    d = Docx(f"TY Belfast Trip 2026 - Itinerary ({label})", "Orla Devlin", created, modified)
    d.h(f"TY Belfast Trip 2026 - Itinerary ({label})", 0)
    d.p("Wednesday 4 - Thursday 5 March 2026. 48 Transition Year students, 4 staff. Coach: Corrib Coach Hire (53-seater).")
    if version == "v1":
        day1 = [("06:45", "Students arrive at the college car park", "Roll call by TY tutors"),
                ("07:00", "Coach departs Claddagh Community College", ""),
                ("09:30", "Comfort stop - Applegreen Lusk (M1)", "20 minutes"),
                ("12:30", "Titanic Belfast - self-guided visit", "Worksheets from Orla"),
                ("15:30", "Crumlin Road Gaol - guided tour", "Group of 48 split in two"),
                ("18:00", "Check in at Linen Quarter Hostel", "Room keys from Orla and Yvonne"),
                ("19:00", "Dinner - Harland's Diner, Great Victoria Street", "Pre-booked set menu"),
                ("23:00", "Lights out", "")]
        day2 = [("07:30", "Breakfast at the hostel", ""),
                ("08:30", "Coach to the Giant's Causeway", "About 1 hr 15 min"),
                ("10:00", "Giant's Causeway - visitor centre and coastal walk", "Rain gear!"),
                ("14:30", "Stormont - Parliament Buildings tour", "Free; photo ID for staff"),
                ("16:30", "Coach departs Belfast", ""),
                ("22:00", "Estimated arrival at the college", "Parents collect")]
    elif version == "v2":
        day1 = [("06:30", "Students arrive at the college car park", "Roll call by TY tutors"),
                ("06:45", "Coach departs Claddagh Community College", ""),
                ("09:15", "Comfort stop - Applegreen Lusk (M1)", "20 minutes"),
                ("12:00", "Titanic Belfast - self-guided visit", "Worksheets from Orla"),
                ("14:30", "Black taxi political murals tour", "Falls Road and Shankill"),
                ("16:30", "Crumlin Road Gaol - guided tour", ""),
                ("18:15", "Check in at Linen Quarter Hostel", ""),
                ("19:00", "Dinner - Harland's Diner, Great Victoria Street", ""),
                ("23:00", "Lights out", "")]
        day2 = [("07:30", "Breakfast at the hostel", ""),
                ("09:30", "Check out; bags into the hostel's secure room", ""),
                ("10:00", "Stormont - Parliament Buildings tour", ""),
                ("13:00", "Ulster Museum (and lunch)", ""),
                ("15:30", "Coach departs Belfast", ""),
                ("21:00", "Estimated arrival at the college", "Parents collect")]
    else:
        day1 = [("06:15", "Students arrive at the college car park", "Roll call by TY tutors - no late arrivals, the bus will not wait"),
                ("06:30", "Coach departs Claddagh Community College", "Driver: Gerry Fallon"),
                ("09:00", "Comfort stop - Applegreen Lusk (M1)", "20 minutes"),
                ("11:30", "Titanic Belfast - self-guided visit", "Worksheets from Orla"),
                ("13:00", "Packed lunch, Titanic Quarter", "Bring lunch from home"),
                ("14:30", "Black taxi political murals tour", "Falls Road and Shankill, 8 taxis"),
                ("16:30", "Crumlin Road Gaol - guided tour", ""),
                ("18:15", "Check in at Linen Quarter Hostel", "Room keys from Orla and Yvonne"),
                ("19:00", "Dinner - Harland's Diner, Great Victoria Street", "Dietary orders sent 20 Feb"),
                ("21:00", "Free time in the hostel common room", "Staff on duty: Shane and Nora"),
                ("23:00", "Lights out", "")]
        day2 = [("07:30", "Breakfast at the hostel", ""),
                ("09:30", "Check out; bags into the hostel's secure room", ""),
                ("10:00", "Stormont - Parliament Buildings tour", "Photo ID for staff"),
                ("12:45", "Ulster Museum (and lunch in the cafe)", "€10 lunch money"),
                ("15:00", "Collect bags from the hostel", ""),
                ("15:30", "Coach departs Belfast", ""),
                ("20:30", "Estimated arrival at the college", "Parents collect from the car park")]
    d.h("Day 1 - Wednesday 4 March", 1)
    d.table([["Time", "Activity", "Notes"]] + [list(x) for x in day1])
    d.page_break()
    d.h("Day 2 - Thursday 5 March", 1)
    d.table([["Time", "Activity", "Notes"]] + [list(x) for x in day2])
    d.h("Contacts", 2)
    d.p("Orla Devlin (trip leader) 087 214 6630. Yvonne Staunton 086 771 0452. Hostel: +44 28 9031 1220.")
    d.h("What to bring", 2)
    d.p("Sterling (about £30), a rain jacket, comfortable shoes, phone charger, any medication (given to Nora on the bus), "
        "student ID. Phones away during the Stormont tour.")
    if version == "v1":
        d.p("TO CHECK: coach price for the Causeway leg; is Stormont free for school groups?")
    return d


def build_work() -> None:
    W = "Work/"
    itinerary("v1", "2026-01-10 20:31", "2026-01-10 22:12").save(W + "TY/Belfast trip 2026/Belfast itinerary v1.docx")
    v2 = itinerary("v2", "2026-01-10 20:31", "2026-01-27 21:40")
    v2.save(W + "TY/Belfast trip 2026/Belfast itinerary v2.docx")
    v2.save("Desktop/Belfast itinerary v2 - copy.docx", "2026-01-28 07:55")
    itinerary("FINAL", "2026-01-10 20:31", "2026-02-19 16:20").save(W + "TY/Belfast trip 2026/Belfast itinerary FINAL.docx")

    # risk assessment
    d = Docx("Risk assessment - TY Belfast trip 2026", "Orla Devlin", "2026-01-22 19:00", "2026-02-12 21:15")
    d.h("Risk assessment - TY Belfast trip, 4-5 March 2026", 0)
    d.kv("Trip leader:", "Orla Devlin (TY Coordinator)")
    d.kv("Staff:", "Orla Devlin, Yvonne Staunton, Shane Gilmartin, Nora Keane (first aid)")
    d.kv("Students:", "48 (TY1 and TY2). Ratio 1 staff member to 12 students at all times.")
    d.kv("Approved by:", "Board of Management, 14 January 2026")
    d.h("Hazards and controls", 1)
    d.table([["Hazard", "Risk", "Controls", "Who"],
             ["Coach travel (M6/M1, 4.5 hours each way)", "Medium", "Seat belts checked at each stop; licensed operator (Corrib Coach Hire); head count at every stop", "All staff"],
             ["Student separated from group in the city", "Medium", "Buddy pairs; laminated card with staff numbers; meeting point at each venue", "Yvonne"],
             ["Allergies / medical needs", "High", "Medical list carried by Nora; 2 coeliac, 1 severe nut allergy (auto-injector x2); venues told in advance", "Nora"],
             ["Overnight in hostel", "Medium", "Staff rooms on the student corridor; lights out 23:00; staff rota through the night", "Orla, Shane"]])
    d.page_break()
    d.table([["Hazard", "Risk", "Controls", "Who"],
             ["Political tour areas", "Low", "Reputable tour company; students stay with the taxi driver; no flags or jerseys", "Shane"],
             ["Weather (Causeway walk)", "n/a", "Causeway leg removed in the revised plan (Feb 2026)", "-"],
             ["Behaviour", "Low", "Code of conduct signed by students and parents; parents collect if sent home", "Orla"]])
    d.h("Emergency procedure", 1)
    d.p("Call 999 (Northern Ireland) or 112. Trip leader phones the principal (Ruth Kilbride, 087 660 1184) and then the parents. "
        "A staff member accompanies any student to hospital; the rest of the group continues with three staff, keeping the 1:12 ratio.")
    d.save(W + "TY/Belfast trip 2026/risk assessment Belfast 2026.docx")

    # payments workbook (last updated 26 Feb)
    studs = ty_students()
    rows = [["Student", "Class", "Deposit paid €", "Balance paid €", "Total paid €", "Outstanding €", "Consent form", "Notes"]]
    owing = {"Jamie Forde": (50, 0, "Mum phoned 24/2 - will pay Monday"),
             "Ella Mulkerrin": (50, 0, "Hardship - agreed with Ruth to pay after the trip"),
             "Rían Hession": (50, 50, "€60 still due, promised by 3/3")}
    pay_rows: dict[str, int] = {}
    for i, (n, c) in enumerate(studs, start=2):
        dep, bal, note = owing.get(n, (50, 110, ""))
        total = dep + bal
        rows.append([n, c, dep, bal, Formula(f"C{i}+D{i}", total), Formula(f"160-E{i}", 160 - total), "Yes", note])
        pay_rows[n] = i
    last = len(rows)
    rows.append(["TOTAL", "", Formula(f"SUM(C2:C{last})", 50 * 48), Formula(f"SUM(D2:D{last})", 110 * 45 + 50),
                 Formula(f"SUM(E2:E{last})", 160 * 45 + 50 + 50 + 100), Formula(f"SUM(F2:F{last})", 110 + 110 + 60), "", ""])
    FACTS["pay_rows"] = pay_rows
    FACTS["pay_total_row"] = last + 1
    costs = [["Item", "GBP", "EUR", "Notes"],
             ["Coach (Corrib Coach Hire, quote of 15 Jan)", "", 2650.00, "incl. Causeway leg"],
             ["Linen Quarter Hostel 48 x £39", 1872.00, 2208.00, "leaders free; deposit £400 paid 20 Jan"],
             ["Titanic Belfast 48 x £14", 672.00, 792.00, "school group rate"],
             ["Crumlin Road Gaol 48 x £7.50", 360.00, 425.00, ""],
             ["Black taxi tour 8 taxis", 408.00, 481.00, ""],
             ["Dinner Harland's Diner 52 x £12", 624.00, 736.00, "staff meals included"],
             ["Total", "", Formula("SUM(C2:C7)", 7292.00), "charged €160 per student = €7,680"]]
    summary = [["Item", "Value"], ["Price per student", "€160 (deposit €50 + balance €110)"], ["Students", 48],
               ["Paid in full", 45], ["Last updated", "26/02/2026"], ["Contingency (income - costs)", "€388"]]
    save_xlsx(W + "TY/Belfast trip 2026/trip payments.xlsx", [("Payments", rows), ("Costs", costs), ("Summary", summary)],
              "Belfast trip payments", "Orla Devlin", "2026-01-14 21:00", "2026-02-26 22:31")

    # TY information evening presentations (this year and last year)
    def ty_deck(year: int, fee: int, closing: str, hike: str) -> list[dict]:
        return [
            {"title": f"Transition Year {year}-{str(year + 1)[2:]} - Information Evening",
             "body": ["Claddagh Community College", f"Orla Devlin, TY Coordinator"], "notes": "Welcome, thank the parents' association for the tea."},
            {"title": "What is TY?", "body": ["A one-year programme between Junior and Senior Cycle",
                                              "Maturity, independent learning, work experience", "Not a 'doss year': attendance and reports count"]},
            {"title": "Programme modules", "body": ["Core: English, Irish, Maths, a European language, PE", "Mini-company, Gaisce Bronze, driver education",
                                                    "Sampling: Chemistry, Physics, Biology, Business, Art, Music", "Film studies, Law & society, Coding"]},
            {"title": "Work experience", "body": ["Two one-week blocks: November and March", "Students find their own placements; we check them",
                                                  "Garda vetting is NOT needed for placements with under-18s supervised by staff"]},
            {"title": "Trips and activities", "body": ["Belfast (2 days, spring)", hike, "Mini-company trade fair", "Gaisce presentation night"]},
            {"title": "Cost", "body": [f"TY contribution {year}-{str(year + 1)[2:]}: €{fee} per student",
                                       f"Payable in two instalments: €{fee // 2} by 1 September and €{fee // 2} by 1 December",
                                       "Covers: Gaisce, workshops, buses for day trips, TY graduation",
                                       "The Belfast trip is paid separately"],
             "notes": "If asked about hardship: talk to me or to Ruth privately - the book grant fund can cover up to half of the contribution. Never discuss it in the hall."},
            {"title": "How to apply", "body": [f"Application form on the school website - closing date {closing}",
                                               "Short interview with the student in May", "Places confirmed by letter in June"]},
            {"title": "Questions?", "body": ["ty@claddaghcc.ie", "Thank you for coming"]},
        ]
    save_pptx(W + "TY/TY information evening 2026.pptx", ty_deck(2026, 350, "Friday 22 May 2026", "Connemara hike - Diamond Hill (Gaisce)"),
              "TY information evening 2026", "Orla Devlin", "2026-04-28 20:00", "2026-05-06 16:45")
    save_pptx(W + "TY/archive/TY information evening 2025.pptx", ty_deck(2025, 320, "Friday 23 May 2025", "Croagh Patrick hike (Gaisce)"),
              "TY information evening 2025", "Orla Devlin", "2025-04-29 19:30", "2025-05-07 17:10")

    save_pptx(W + "Geography/1st year - rivers and flooding.pptx", [
        {"title": "Rivers and flooding", "body": ["1st year Geography", "Ms Devlin"]},
        {"title": "The river's course", "body": ["Upper course: V-shaped valley, waterfalls", "Middle course: meanders", "Lower course: floodplain, estuary"]},
        {"title": "Case study: the Corrib", "body": ["Lough Corrib to Galway Bay - only 6 km long", "One of the fastest-flowing rivers in Europe", "Salmon Weir Bridge"]},
        {"title": "Why do rivers flood?", "body": ["Heavy or prolonged rainfall", "Saturated ground, impermeable surfaces", "High tides and storm surges (Galway 2018)"]},
        {"title": "Field trip: Salthill", "body": ["Tuesday 28 April - bring wet gear", "Measure: width, depth, velocity at 3 sites", "Worksheet due the following Monday"],
         "notes": "Need 2 more adults - ask Gearóid and a TY student helper."},
    ], "Rivers and flooding", "Orla Devlin", "2026-04-14 19:00", "2026-04-26 21:05")

    # staff meeting minutes
    d = Docx("Staff meeting minutes 14 January 2026", "Bernie Walsh", "2026-01-14 17:00", "2026-01-15 09:40")
    d.h("Staff meeting - Wednesday 14 January 2026", 0)
    d.p("Present: R. Kilbride (chair), C. Breathnach, 41 teaching staff. Apologies: 3. Minutes: B. Walsh.")
    d.h("1. Mock examinations", 1)
    d.p("Mocks for 3rd and 6th years run Monday 2 February - Friday 13 February. Classes not sitting mocks continue as normal. "
        "Invigilation rota from C. Breathnach by 28 January.")
    d.h("2. TY Belfast trip", 1)
    d.p("The Board of Management approved the TY trip to Belfast on 4-5 March (O. Devlin, trip leader). Cover to be arranged for the four staff travelling.")
    d.h("3. Croke Park hours", 1)
    d.p("Reminder that the 33 hours must be logged on the shared form. Sessions remaining this year: 25 February, 22 April, 20 May.")
    d.page_break()
    d.h("4. Attendance and punctuality", 1)
    d.p("Late arrivals up 12% on last year. Year heads to follow up with students late more than 5 times per term.")
    d.h("5. AOB", 1)
    d.p("Canteen refurbishment during the Easter break. Next staff meeting: Wednesday 11 March.")
    d.save(W + "meetings/staff meeting 2026-01-14 minutes.docx", "2026-01-15 09:40")

    d = Docx("Staff meeting minutes 11 March 2026", "Bernie Walsh", "2026-03-11 17:00", "2026-03-12 10:05")
    d.h("Staff meeting - Wednesday 11 March 2026", 0)
    d.p("Present: R. Kilbride (chair), C. Breathnach, 43 teaching staff. Apologies: 1. Minutes: B. Walsh.")
    d.h("1. Matters arising", 1)
    d.p("Mock results are in VSware. R. Kilbride thanked the TY team for the Belfast trip - the hostel and the Stormont guides praised the group.")
    d.h("2. Attendance", 1)
    d.p("Attendance in February was 92.4%, down from 93.8% in January (flu). Letters to go to families below 85%.")
    d.h("3. Subject options for 5th year", 1)
    d.p("Option blocks for 2026-27 to be finalised by 27 March. Physics and Economics clash again; C. Breathnach to look at a split block.")
    d.page_break()
    d.h("4. Summer examinations", 1)
    d.p("Decision: summer exams for 1st and 2nd years will run from Tuesday 19 May to Friday 22 May 2026, in class groups in "
        "their own rooms (no sports hall this year). TY and 5th years will have in-class assessments in the week of 18 May instead "
        "of formal exams. 3rd and 6th years finish for study leave on Friday 22 May.")
    d.p("Reports to issue on Friday 29 May; comments into VSware by Wednesday 27 May.")
    d.h("5. AOB", 1)
    d.p("Staff night out: Friday 29 May. Next staff meeting: Wednesday 13 May.")
    d.save(W + "meetings/staff meeting 2026-03-11 minutes.docx", "2026-03-12 10:05")

    # Croke Park hours log (two school years)
    prev = [["Date", "Activity", "Hours", "Notes"],
            ["2024-08-29", "Whole-staff planning day", 3.0, ""], ["2024-09-11", "Staff meeting", 1.0, ""],
            ["2024-10-09", "Subject department planning - History", 2.0, ""], ["2024-11-13", "Parent-teacher meeting (5th year)", 3.0, ""],
            ["2024-12-11", "Staff meeting", 1.0, ""], ["2025-01-15", "Staff meeting", 1.0, ""],
            ["2025-02-05", "TY planning", 2.0, ""], ["2025-02-26", "Croke Park session - SSE", 2.0, ""],
            ["2025-03-12", "Staff meeting", 1.0, ""], ["2025-04-09", "Parent-teacher meeting (3rd year)", 3.0, ""],
            ["2025-04-23", "Croke Park session - wellbeing", 2.0, ""], ["2025-05-06", "TY information evening", 2.5, ""],
            ["2025-05-14", "Staff meeting", 1.0, ""], ["2025-05-21", "Croke Park session - planning", 2.0, ""],
            ["2025-06-04", "Graduation mass and ceremony", 3.0, ""], ["2025-08-27", "Whole-staff planning day", 3.0, "counted in 2024-25"],
            ["Total", "", Formula("SUM(C2:C17)", 32.5), ""], ["Remaining (of 33)", "", Formula("33-C18", 0.5), ""]]
    cur = [["Date", "Activity", "Hours", "Notes"],
           ["2025-08-28", "Whole-staff planning day", 3.0, ""], ["2025-09-10", "Staff meeting", 1.0, ""],
           ["2025-10-08", "Subject department planning - History", 2.0, ""], ["2025-11-12", "Parent-teacher meeting (5th year)", 3.0, ""],
           ["2025-12-10", "Staff meeting", 1.0, ""], ["2026-01-14", "Staff meeting", 1.0, ""],
           ["2026-02-04", "TY planning - Belfast", 2.0, ""], ["2026-02-25", "Croke Park session - SSE literacy", 2.0, ""],
           ["2026-03-11", "Staff meeting", 1.0, ""], ["2026-03-26", "Parent-teacher meeting (3rd year)", 3.0, ""],
           ["2026-04-22", "Croke Park session - AI and assessment", 2.0, ""], ["2026-05-06", "TY information evening", 2.5, ""],
           ["2026-05-13", "Staff meeting", 1.0, ""], ["2026-05-20", "Croke Park session - planning", 3.0, "booked"],
           ["Total", "", Formula("SUM(C2:C14)", 24.5), "logged so far (excludes 20 May, booked)"],
           ["Remaining (of 33)", "", Formula("33-C16", 8.5), ""]]
    save_xlsx(W + "admin/Croke Park hours 2024-26.xlsx", [("2025-26", cur), ("2024-25", prev)],
              "Croke Park hours", "Orla Devlin", "2024-08-29 21:00", "2026-05-13 18:10")
    FACTS["croke_total"] = 24.5

    pdf = PDF("Certificate of participation", "Oide", "2025-11-20 15:00")
    pdf.space(60)
    pdf.line("CERTIFICATE OF PARTICIPATION", 20, True, x=150)
    pdf.space(30)
    pdf.para("This is to certify that Orla Devlin, Claddagh Community College, participated in the professional learning "
             "programme 'Teaching the Leaving Certificate History Research Study Report (RSR)' (10 hours, blended), "
             "October - November 2025.")
    pdf.para("Oide - Professional Learning for Teachers. 20 November 2025.")
    pdf.save(W + "admin/CPD certificate - Oide RSR 2025.pdf", "2025-11-20 15:40")

    # timetable
    pdf = PDF("Timetable 2025-26 - Orla Devlin", "Claddagh Community College", "2025-08-29 10:00", "VSware timetable export")
    pdf.line("Claddagh Community College - Teacher timetable 2025-26", 13, True)
    pdf.line("Teacher: Orla Devlin (ODE)   Subjects: History, Geography   Role: TY Coordinator", 9.5)
    pdf.space(6)
    xs = [56, 100, 160, 236, 312, 388, 464]
    per = [("1", "08:50"), ("2", "09:50"), ("3", "10:50"), ("4", "11:50"), ("5", "13:30"), ("6", "14:30"), ("7", "15:20")]
    grid = {
        "Mon": ["3B Hist", "1C Geog", "free", "5H2 Hist*", "TY Law", "1C Geog", "-"],
        "Tue": ["1C Geog", "3B Hist", "TY Film", "free", "6H1 Hist", "6H1 Hist", "-"],
        "Wed": ["3B Hist", "TY coord", "6H1 Hist", "1C Geog", "TY team 13:10", "free", "-"],
        "Thu": ["free", "6H1 Hist", "3B Hist", "TY Law", "1C Geog", "3B Hist", "Sup"],
        "Fri": ["6H1 Hist", "TY coord", "1C Geog", "3B Hist", "free", "-", "-"],
    }
    pdf.row(["Period", "Start"] + list(grid), xs, 9, True)
    for i, (p, t) in enumerate(per):
        pdf.row([p, t] + [grid[dname][i] for dname in grid], xs, 9)
    pdf.space(6)
    pdf.para("* 5H2 Monday period 4 is shared with D. Moran (History RSR support). Sup = supervision, canteen. "
             "Wednesday afternoons (from 13:10) TY team meeting, then class period 6. Friday: school closes 13:10 after period 4 "
             "on the last Friday of each month.", 9)
    pdf.save(W + "Timetable 2025-26 Orla Devlin.pdf", "2025-08-29 10:30")

    build_results()

    # lesson plans and work experience
    put(W + "History/lesson plans/2026-02-10 5th year - the Land War.md", """# 5th year History - the Land War (1879-82)

Class: 6H1 / 5H2 (shared with Declan). Double period, Tuesday.

## Learning intentions
- Explain the causes of the Land War: agricultural depression 1877-79, evictions, the Three Fs.
- Evaluate the role of Davitt and Parnell; the Land League and boycotting (Captain Boycott, Co. Mayo, 1880).

## Sequence
1. Starter (10 min): photo of an eviction scene - what is happening? who is who?
2. Timeline cards in pairs (15 min).
3. Source work: Davitt's speech at Irishtown (1879), Parnell's Ennis speech (1880).
4. Exit ticket: "Was the Land War a success?" 3 sentences.

## Homework
Read pp. 112-118; 1 paragraph on Gladstone's 1881 Land Act.

## Notes after class
Timeline cards took 25 min, not 15. Next year: pre-cut them.
""", "2026-02-10 21:05")
    put(W + "History/lesson plans/2026-03-03 3rd year - 1916 sources.md", """# 3rd year History - the 1916 Rising: working with sources

Class: 3B. Single period (Tuesday period 2) + homework.

- Proclamation: who signed it, what does it promise? (equal rights, "cherishing all the children")
- Photo of Sackville Street after the Rising - what does it tell us, what does it leave out?
- Eyewitness account (Bureau of Military History): primary or secondary? reliable?

Junior Cycle CBA link: students can use this for the "Past and present" classroom-based assessment.

Cover note for Wednesday 4 March (I'm in Belfast): 3B to finish the source worksheet in silence; answers on Teams.
""", "2026-03-03 20:41")

    r = rng("work-exp")
    places = ["Galway Clinic - admin", "Salthill Books", "Galway City Council - planning office", "Devlin Joinery",
              "Leisureland - lifeguard shadowing", "Medtronic Parkmore - engineering", "Scoil Íde NS - classroom assistant",
              "Galway Advertiser - newsroom", "Atlantic Vet Hospital", "Galway Bay FM", "Irish Rail - Ceannt Station",
              "Brooks Timber", "NUI Galway - marine lab", "Eyre Square Centre - retail", "Galway City Museum"]
    rows = []
    for n, c in ty_students()[:30]:
        rows.append([n, c, r.choice(places), "23/03/2026", "27/03/2026", r.choice(["confirmed", "confirmed", "confirmed", "form missing"])])
    write_csv(W + "TY/work experience placements block 2.csv", ["Student", "Class", "Placement", "From", "To", "Status"], rows, "2026-03-13 18:22")


def build_results() -> None:
    """Orla's 3B History results, Declan's 5H2 results, the marks export and the grading script."""
    W = "Work/"
    r = rng("results-3b")
    names = []
    while len(names) < 26:
        n = f"{r.choice(FIRST)} {r.choice(LAST)}"
        if n not in names:
            names.append(n)
    names.sort(key=lambda s: s.split(" ", 1)[1])
    marks = []
    for n in names:
        p1 = r.randint(28, 59)  # section A (60)
        p2 = r.randint(14, 40)  # section B (40)
        marks.append((n, p1, p2))
    write_csv(W + "tools/marks_3B_christmas_2025.csv", ["student", "section_a_60", "section_b_40"],
              [[n, a, b] for n, a, b in marks], "2025-12-12 16:40")

    def jc(p):
        for cut, name in ((90, "Distinction"), (75, "Higher Merit"), (55, "Merit"), (40, "Achieved"), (20, "Partially Achieved")):
            if p >= cut:
                return name
        return "Not Graded"
    rows = [["Student", "Section A (60)", "Section B (40)", "Total %", "Descriptor", "Comment"]]
    comments = ["Good knowledge; develop longer answers.", "Excellent work - well done.", "Revise the timeline of 1916-23.",
                "Improving; use sources more.", "Must complete homework consistently.", "Very good source analysis."]
    for i, (n, a, b) in enumerate(marks, start=2):
        rows.append([n, a, b, Formula(f"B{i}+C{i}", a + b), jc(a + b), comments[(a + b) % len(comments)]])
    avg = sum(a + b for _, a, b in marks) / len(marks)
    rows.append(["Class average", "", "", Formula(f"AVERAGE(D2:D{len(marks) + 1})", round(avg, 1)), "", ""])
    save_xlsx(W + "History/results/3B History Christmas 2025.xlsx", [("3B", rows)], "3B History Christmas 2025",
              "Orla Devlin", "2025-12-12 16:50", "2025-12-15 21:30")
    FACTS["3b_avg"] = round(avg, 1)

    r = rng("results-5h2")
    rows = [["Student", "Paper (400)", "%", "LC grade", "Comment"]]
    for i in range(2, 24):
        n = f"{r.choice(FIRST)} {r.choice(LAST)}"
        mark = r.randint(150, 360)
        pct = round(mark / 4)
        grade = "H" + str(max(1, min(8, 10 - pct // 10))) if pct >= 30 else "H8"
        rows.append([n, mark, pct, grade, ""])
    rows.append(["Class average", "", 64, "", "Declan - Christmas 2025"])
    save_xlsx(W + "History/results/5H2 History Christmas 2025 (Declan).xlsx", [("5H2", rows)], "5H2 History",
              "Declan Moran", "2025-12-16 15:00", "2026-01-16 17:40")

    put(W + "tools/grade_calc.py", '''#!/usr/bin/env python3
"""Turn exam marks into report grades.

Reads a marks export (CSV, one row per student, one column per section) and writes
<name>_graded.csv with the total percentage and the grade for the report:

  --level jc   Junior Cycle descriptors (3rd year and below)
  --level lc   Leaving Certificate H/O grades (5th and 6th year)

Usage:  python3 grade_calc.py marks_3B_christmas_2025.csv --level jc
"""
import argparse
import csv
from pathlib import Path

# Junior Cycle descriptors: lowest percentage for each descriptor
JC_BANDS = [
    (90, "Distinction"),
    (75, "Higher Merit"),
    (55, "Merit"),
    (40, "Achieved"),
    (20, "Partially Achieved"),
    (0, "Not Graded"),
]

# Leaving Certificate higher level: H1 = 90-100, H2 = 80-89, ... H7 = 30-39, H8 = 0-29
LC_BANDS = [(90, "H1"), (80, "H2"), (70, "H3"), (60, "H4"), (50, "H5"), (40, "H6"), (30, "H7"), (0, "H8")]


def grade(pct: float, level: str) -> str:
    bands = JC_BANDS if level == "jc" else LC_BANDS
    for cut, name in bands:
        if pct >= cut:
            return name
    return bands[-1][1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("marks")
    ap.add_argument("--level", choices=["jc", "lc"], default="jc")
    args = ap.parse_args()
    src = Path(args.marks)
    with src.open(newline="") as f:
        rows = list(csv.DictReader(f))
    # column names end in the section's maximum, e.g. section_a_60
    maxima = {c: int(c.rsplit("_", 1)[1]) for c in rows[0] if c[-1].isdigit()}
    out = src.with_name(src.stem + "_graded.csv")
    with out.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "total_pct", "grade"])
        for r in rows:
            pct = 100 * sum(float(r[c]) for c in maxima) / sum(maxima.values())
            w.writerow([r["student"], f"{pct:.0f}", grade(round(pct), args.level)])
    print(f"wrote {out} ({len(rows)} students)")


if __name__ == "__main__":
    main()
''', "2025-12-12 17:05")

    nb = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# 3B History - Christmas 2025\n", "Quick look at the spread before writing comments."]},
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
         "source": ["import csv, statistics\n", "rows = list(csv.DictReader(open('marks_3B_christmas_2025_graded.csv')))\n",
                    "pcts = [int(r['total_pct']) for r in rows]\n", "statistics.mean(pcts), min(pcts), max(pcts)"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {},
         "outputs": [{"name": "stdout", "output_type": "stream", "text": [f"class average {FACTS['3b_avg']}\n"]}],
         "source": ["from collections import Counter\n", "print('class average', round(statistics.mean(pcts), 1))\n",
                    "Counter(r['grade'] for r in rows)"]}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python", "version": "3.11.7"}},
        "nbformat": 4, "nbformat_minor": 5}
    put(W + "tools/3B results check.ipynb", json.dumps(nb, indent=1, ensure_ascii=False) + "\n", "2025-12-12 17:30")


# ----------------------------------------------------------------------------------------
# School (the children's schools), Travel
# ----------------------------------------------------------------------------------------

def cian_report(year: str, klass: str, results: list[tuple[str, str, str, int, str]], attendance: str, tutor_comment: str, mtime: str) -> None:
    pdf = PDF(f"Christmas report {year} - Cian Devlin", "Corrib Valley College", mtime, "VSware reports")
    pdf.footer = "Corrib Valley College, Bóthar na dTreabh, Galway"
    pdf.line("Corrib Valley College", 16, True)
    pdf.line(f"Christmas Report {year}", 13, True)
    pdf.row(["Student:", "Cian Devlin", "Class:", klass], [56, 120, 330, 380])
    pdf.row(["Year head:", "Mr P. Cunningham", "Attendance:", attendance], [56, 120, 330, 400])
    pdf.space(8)
    xs = [56, 146, 188, 272, 306]
    pdf.row(["Subject", "Level", "Teacher", "Result", "Comment"], xs, 8, True)
    for subj, lvl, teacher, pct, comment in results:
        pdf.row([subj, lvl, teacher, f"{pct}%", comment], xs, 8)
    pdf.space(10)
    pdf.line("Class tutor's comment", 11, True)
    pdf.para(tutor_comment)
    pdf.para("Results are percentages in the Christmas tests. Junior Cycle descriptors are only awarded in the final examinations.", 8.5)
    pdf.save(f"School/Cian/Cian report Christmas {year}.pdf", mtime)


def build_school() -> None:
    cian_report("2024", "2B", [
        ("English", "Higher", "Ms Lenihan", 68, "Good reader; essays need planning."),
        ("Irish", "Higher", "Ms Ní Fhátharta", 61, "Ag feabhsú."),
        ("Mathematics", "Higher", "Mr Dooley", 58, "Struggled with algebra; extra practice needed."),
        ("Science", "Common", "Ms Brennan", 66, "Good practical work."),
        ("History", "Common", "Mr Folan", 75, "Very good interest in the subject."),
        ("Geography", "Common", "Ms Ward", 70, "Solid."),
        ("French", "Higher", "Mme Roussel", 71, "Good oral work."),
        ("Business Studies", "Common", "Mr Tierney", 64, "Fair."),
        ("Wood Technology", "Common", "Mr Lally", 80, "Excellent project work."),
    ], "94%", "Cian is a pleasant, hard-working member of 2B. More consistent homework in Maths would help.", "2024-12-20 14:00")
    cian_report("2025", "3B", [
        ("English", "Higher", "Ms Lenihan", 72, "Much better essay structure."),
        ("Irish", "Higher", "Ms Ní Fhátharta", 64, "Obair mhaith."),
        ("Mathematics", "Higher", "Mr Dooley", 74, "Huge improvement - extra work paying off."),
        ("Science", "Common", "Ms Brennan", 69, "Good."),
        ("History", "Common", "Mr Folan", 78, "Very good source work."),
        ("Geography", "Common", "Ms Ward", 73, "Good map skills."),
        ("French", "Higher", "Mme Roussel", 62, "Vocabulary must be revised regularly."),
        ("Business Studies", "Common", "Mr Tierney", 67, "Steady progress."),
        ("Wood Technology", "Common", "Mr Lally", 84, "Project on track for an excellent grade."),
    ], "96%", "A very good term. Cian should keep up the Maths and give French more time before June.", "2025-12-19 13:40")

    pdf = PDF("End of year report 2025 - Aoife Devlin", "Rusheen Bay National School", "2025-06-20 12:00")
    pdf.line("Rusheen Bay National School", 16, True)
    pdf.line("End of Year Report - 4th Class - June 2025", 12, True)
    pdf.row(["Pupil:", "Aoife Devlin", "Teacher:", "Mr Colm Mac Donncha"], [56, 110, 330, 390])
    pdf.space(6)
    pdf.table(["Area", "Progress", "Comment"], [
        ["English reading", "Very good", "Reads widely; loves the Wings of Fire series."],
        ["English writing", "Good", "Lively stories; check punctuation."],
        ["Gaeilge", "Good", "Speaks with confidence."],
        ["Mathematics", "Very good", "Quick with number facts."],
        ["SESE", "Excellent", "Fantastic project on the Claddagh ring."],
        ["PE", "Very good", "Great energy in dance and swimming."]], [56, 190, 280])
    pdf.para("Standardised tests (May 2025): Drumcondra English STen 7, Maths STen 8. Days absent: 4.")
    pdf.save("School/Aoife/Aoife report June 2025.pdf", "2025-06-20 15:10")

    put("School/Aoife/feis entry 2026.txt", """Galway Feis 2026 - entry (Scoil Rince Cladaigh)
Dancer: Aoife Devlin   Age group: Under 12
Date: Saturday 18 April 2026, Leisureland, Salthill
Dances: reel (light), slip jig, treble jig (heavy), treble reel
Entry fee: 4 dances x €6 = €24, paid to the school by 27 March
Wig and dress: borrowing the blue dress from Laoise Conneely again - collect Friday 17th
Number collection from 08:30, U12 reel stage 2 approx 09:45
""", "2026-03-20 21:40")

    pdf = PDF("Junior Cycle 2026 information for parents", "Corrib Valley College", "2026-01-30 12:00")
    pdf.line("Corrib Valley College - Junior Cycle 2026", 14, True)
    pdf.line("Information for parents of 3rd year students", 11)
    pdf.space(6)
    pdf.para("The written examinations begin on Wednesday 3 June 2026. Students sit a maximum of 10 subjects. Classroom-Based "
             "Assessments (CBAs) are completed in class and reported on the JCPA.")
    pdf.para("Key dates: mock examinations 2-13 February; Science Assessment Task week of 20 April; last day of class "
             "Friday 22 May; examinations 3-17 June; results in the autumn.")
    pdf.para("Students should bring a clear pencil case, their examination number and a bottle of water. Phones are not "
             "permitted in the examination centre.")
    pdf.save("School/Cian/Junior Cycle 2026 - information for parents.pdf", "2026-01-30 20:05")


def build_travel() -> None:
    T = "Travel/2026-04 Santiago/"
    pdf = PDF("Atlantica Air e-ticket receipt AQ7KZP", "Atlántica Air", "2025-11-21 21:46", "Atlántica Air ticketing")
    pdf.footer = "Atlántica Air S.A. - this receipt is not a boarding pass"
    pdf.line("Atlántica Air", 18, True)
    pdf.line("E-ticket receipt and itinerary", 12, True)
    pdf.row(["Booking reference:", "AQ7KZP"], [56, 190], bold=True)
    pdf.row(["Booked:", "21 November 2025"], [56, 190])
    pdf.row(["Contact:", "Orla Devlin, orla.devlin@mailbox.ie"], [56, 190])
    pdf.space(8)
    pdf.line("Passengers", 12, True)
    pdf.table(["Name", "Type", "E-ticket"], [["Mrs Orla Devlin", "Adult", "618 2400711301"], ["Mr Fergal Devlin", "Adult", "618 2400711302"],
                                              ["Mr Cian Devlin", "Adult (15)", "618 2400711303"], ["Miss Aoife Devlin", "Child (11)", "618 2400711304"]], [56, 250, 360])
    pdf.line("Outbound", 12, True)
    xs = [56, 120, 210, 300, 390, 470]
    pdf.table(["Flight", "Date", "From", "Departs", "To", "Arrives"],
              [["AQ 4312", "Fri 3 Apr 2026", "Shannon SNN", "07:25", "Santiago SCQ", "10:35"]], xs)
    pdf.para("Times are local. Bags: 2 x 20 kg checked bags on this booking, plus one small under-seat bag each. Bag drop closes 40 minutes before departure.", 9)
    pdf.new_page()
    pdf.line("Return", 12, True)
    pdf.table(["Flight", "Date", "From", "Departs", "To", "Arrives"],
              [["AQ 4317", "Wed 8 Apr 2026", "Santiago SCQ", "18:55", "Shannon SNN", "20:10"]], xs)
    pdf.line("Payment summary", 12, True)
    pdf.table(["Item", "", "Amount"], [
        ["Fares 4 x €198.00", "", "€792.00"], ["Taxes and charges 4 x €39.09", "", "€156.36"],
        ["Checked bags 20 kg 2 x €55.00", "", "€110.00"], ["Reserved seats 4 x €22.50", "", "€90.00"],
        ["Total paid (Visa debit ending 4417)", "", "€1,148.36"]], [56, 330, 450], right={2})
    pdf.para("Changes are possible up to 2 hours before departure for a fee of €45 per passenger per flight plus any fare difference. "
             "Names cannot be changed.", 9)
    pdf.save(T + "Atlantica Air e-ticket AQ7KZP.pdf", "2025-11-21 21:52")

    put(T + "check-in instructions - Rua do Vilar 14.txt", """APARTAMENTOS VILAR - CHECK-IN INSTRUCTIONS
Guest: Orla Devlin (4 guests)   Dates: 03/04/2026 - 08/04/2026

Address: Rúa do Vilar 14, 2º izquierda, 15705 Santiago de Compostela
The street is pedestrian only. Taxis can stop at Praza de Galicia (5 min walk).

Key box: on the wall to the right of the street door, grey box.
Key box code: 4819
Take both keys (street door + apartment). Please put them back in the box when you leave.

Wi-Fi network: VILAR14
Wi-Fi password: compostela2026

Check-in from 15:00. Luggage can be left in the box room on the ground floor before that.
Check-out by 11:00. Leave the keys in the key box and close the street door behind you.

Rubbish: glass and cardboard to the containers in Rúa Nova, the rest in the kitchen bin.
Washing machine: programme 4 (40º, 59 min). Powder under the sink.
Host: Marta Castro, +34 981 55 30 17 (WhatsApp)
""", "2026-03-27 09:45")

    put(T + "ideas.md", """# Santiago - Easter 2026 ideas

Flights AQ7KZP (see e-ticket). Apartment on Rúa do Vilar - right in the old town.

## Food
- Maeve's tip: book Taberna O Galo Azul on Rúa da Raíña for dinner - ask for the pulpo á feira and the tarta de Santiago. Book ahead, it's tiny.
- Fergal wants to try Casa Marcelo - probably too fancy with the kids.
- Sinéad says the Mercado de Abastos is best on Saturday morning; there are stalls that cook what you buy.
- Churros at Café Tacita d'Juan (Aoife!).

## Things to do
- Cathedral: the roof tour (book online, €15), pilgrims' mass at 12:00 - botafumeiro not guaranteed.
- Parque da Alameda for the view of the cathedral at sunset.
- Museo do Pobo Galego - the spiral staircase.
- Day trip? Coast at Fisterra (bus 2.5 h) or A Coruña (train 35 min, Tower of Hercules). Cian votes Coruña.

## Spanish to practise (Lucía's list)
¿Me pone...? / la cuenta, por favor / ¿dónde está...? / una mesa para cuatro
""", "2026-03-22 21:15")

    put(T + "packing list.md", """# Packing - Santiago

- [x] passports (Aoife's renewed Feb!)
- [x] EHIC cards x4
- [x] adaptors x2
- [ ] rain jackets - it rains more in Santiago than in Galway apparently
- [x] swimming togs (in case of a beach day)
- [x] Spanish phrasebook
- [ ] Cian's charger
- [x] printed e-tickets, check-in instructions
- 2 checked bags only (20 kg each) + under-seat bags
""", "2026-04-02 22:30")

    put("Travel/2025-08 Donegal/cottage arrival info.txt", """GLENVEAGH VIEW COTTAGE - ARRIVAL INFORMATION
Dunlewey, Co. Donegal F92 X6C4

Welcome! Glenveagh View is a self-catering cottage: 3 bedrooms (1 double, 1 twin, 1 single),
kitchen with oven, hob and dishwasher, washing machine in the utility room, turf stove.

Arrival: from 16:00 on Saturday. Departure: by 10:00 the following Saturday.
Key: in the key safe by the back door, code 2706.
Wi-Fi: GlenveaghView / errigal1 (weak in the back bedroom).
Heating: oil, switch on the side of the boiler in the utility room.
Shop: Dunlewey Centre (5 min drive), Gweedore for a supermarket (20 min).
Please do not let the cat from the farm into the cottage, however much she insists.
Owners: Bríd and Donal Ó Gallchóir, 074 953 1190
""", "2025-07-30 19:12")
    write_csv("Travel/2025-08 Donegal/Donegal costs.csv", ["date", "item", "who_paid", "eur"], [
        ["2025-06-02", "Cottage deposit", "Orla", "250.00"], ["2025-07-26", "Cottage balance", "Orla", "640.00"],
        ["2025-08-02", "Fuel Galway-Dunlewey", "Fergal", "72.40"], ["2025-08-02", "Groceries Gweedore", "Orla", "164.35"],
        ["2025-08-04", "Glenveagh castle tour x4", "Fergal", "24.00"], ["2025-08-05", "Surf lesson Cian + Aoife", "Orla", "80.00"],
        ["2025-08-06", "Lunch Dunfanaghy", "Fergal", "58.90"], ["2025-08-07", "Groceries Dungloe", "Orla", "97.12"],
        ["2025-08-08", "Fuel", "Fergal", "65.00"], ["2025-08-09", "Fuel home", "Fergal", "70.10"]], "2025-08-10 21:00")

    d = Docx("Edinburgh July 2023", "Orla Devlin", "2023-06-18 20:00", "2023-07-02 21:30")
    d.h("Edinburgh - 10 to 14 July 2023", 0)
    d.p("Flights Knock - Edinburgh. Staying at the Tollcross Apartments (2-bed, kitchen).")
    d.table([["Day", "Plan"], ["Mon 10", "Arrive 13:40; Arthur's Seat if dry"], ["Tue 11", "Castle (tickets booked 09:30), Royal Mile"],
             ["Wed 12", "National Museum; Dynamic Earth for Aoife"], ["Thu 13", "North Berwick by train - beach"],
             ["Fri 14", "Fly home 17:20"]])
    d.save("Travel/2023-07 Edinburgh/Edinburgh itinerary.docx", "2023-07-02 21:30")


# ----------------------------------------------------------------------------------------
# Calendars
# ----------------------------------------------------------------------------------------

def build_calendars() -> None:
    me = ("Orla Devlin", "orla.devlin@mailbox.ie")
    ics_calendar("calendar/Orla.ics", "Orla", [
        {"uid": "spanish2-mon-2026@orla.devlin", "summary": "Spanish 2 - Westside Adult Ed",
         "start": "2026-01-19 19:00", "end": "2026-01-19 21:00",
         "rrule": "FREQ=WEEKLY;BYDAY=MO;UNTIL=20260330T220000Z", "exdates": ["2026-02-16 19:00"],
         "location": "Westside Resource Centre, Seamus Quirke Road, Galway",
         "description": "Tutor: Lucía Pardo. Textbook: Aula Internacional 2 (units 5-8). Fee €140 paid in January. No class on mid-term Monday.",
         "organizer": ("Lucía Pardo", "lucia.pardo@westsideadulted.ie"), "attendees": [me], "stamp": "20260112T201500Z"},
        {"uid": "gbs-rehearsal-2026@orla.devlin", "summary": "Galway Bay Singers - rehearsal",
         "start": "2026-01-13 19:45", "end": "2026-01-13 21:45",
         "rrule": "FREQ=WEEKLY;BYDAY=TU;UNTIL=20260421T220000Z", "exdates": ["2026-02-17 19:45", "2026-03-17 19:45", "2026-03-31 19:45", "2026-04-07 19:45"],
         "location": "Salthill Parish Hall", "description": "Alto 2. Bring the black folder and a pencil.",
         "organizer": ("Lorcan Hehir", "lorcan@galwaybaysingers.ie"), "attendees": [me]},
        {"uid": "gbs-sectional-0409@orla.devlin", "summary": "Choir sectional - altos and tenors",
         "start": "2026-04-09 19:30", "end": "2026-04-09 21:00", "location": "Salthill Parish Hall",
         "description": "Las Amarillas and the Jenkins Sanctus."},
        {"uid": "gbs-dress-0423@orla.devlin", "summary": "Choir dress rehearsal",
         "start": "2026-04-23 19:30", "end": "2026-04-23 21:30", "location": "St Nicholas' Collegiate Church, Lombard Street, Galway",
         "description": "Full run in concert order. Music off by heart for Las Amarillas."},
        {"uid": "gbs-spring-concert-2026@orla.devlin", "summary": "Galway Bay Singers - Spring Concert",
         "start": "2026-04-25 20:00", "end": "2026-04-25 21:45", "location": "St Nicholas' Collegiate Church, Lombard Street, Galway",
         "description": "Call time 19:00 at the side door on Lombard Street (warm-up in the vestry). Dress: all black, with the teal scarf. Bring the folder and water. Fergal, Aoife and Mam coming - 3 tickets at the door.",
         "organizer": ("Lorcan Hehir", "lorcan@galwaybaysingers.ie"), "attendees": [me], "stamp": "20260410T190000Z"},
        {"uid": "gbs-christmas-concert-2025@orla.devlin", "summary": "Galway Bay Singers - Christmas Concert",
         "start": "2025-12-13 20:00", "end": "2025-12-13 21:30", "location": "St Nicholas' Collegiate Church, Lombard Street, Galway",
         "description": "Call time 18:30. Dress: all black with the red scarf. Carols for the audience at the end.", "stamp": "20251201T100000Z"},
        {"uid": "physio-orla-0218@orla.devlin", "summary": "Physio - Westside (knee)", "start": "2026-02-18 16:30", "end": "2026-02-18 17:15",
         "location": "Westside Physiotherapy Clinic, Seamus Quirke Road"},
        {"uid": "physio-orla-0225@orla.devlin", "summary": "Physio - Westside (knee)", "start": "2026-02-25 16:30", "end": "2026-02-25 17:15",
         "location": "Westside Physiotherapy Clinic, Seamus Quirke Road"},
        {"uid": "physio-orla-0311@orla.devlin", "summary": "Physio - Westside (knee)", "start": "2026-03-11 16:30", "end": "2026-03-11 17:15",
         "location": "Westside Physiotherapy Clinic, Seamus Quirke Road", "description": "Last session - ask about returning to the Wednesday swims."},
        {"uid": "bookclub-2026@orla.devlin", "summary": "Book club", "start": "2026-01-08 20:00", "end": "2026-01-08 22:00",
         "rrule": "FREQ=MONTHLY;BYDAY=1TH;COUNT=6", "location": "Rotating - see WhatsApp",
         "description": "Jan: The Bee Sting. Feb: Prophet Song. Mar: Small Things Like These (reread). Apr: Intermezzo. May: Held. Jun: tbc."},
        {"uid": "hair-0224@orla.devlin", "summary": "Hair - Zest", "start": "2026-02-24 16:30", "end": "2026-02-24 17:30", "location": "Zest Hair Studio, Salthill"},
        {"uid": "hair-0414@orla.devlin", "summary": "Hair - Zest", "start": "2026-04-14 11:00", "end": "2026-04-14 12:00", "location": "Zest Hair Studio, Salthill"},
        {"uid": "dil-2026@orla.devlin", "summary": "Darkness into Light walk + dip", "start": "2026-05-09 04:15", "end": "2026-05-09 07:30",
         "location": "Salthill Promenade (Seapoint end), then Blackrock", "description": "With Maeve and Sinéad. Breakfast at Maeve's after."},
    ], "2026-05-10 08:00", "Personal calendar")

    fam = [("Orla Devlin", "orla.devlin@mailbox.ie"), ("Fergal Devlin", "fergal@devlinjoinery.ie")]
    ics_calendar("calendar/Family.ics", "Devlin family (shared)", [
        {"uid": "mam-sunday@devlin.family", "summary": "Visit Mam - Ballinasloe", "start": "2026-01-11 13:00", "end": "2026-01-11 18:00",
         "rrule": "FREQ=WEEKLY;INTERVAL=2;BYDAY=SU", "exdates": ["2026-04-05 13:00"], "location": "Mam's, Creagh Road, Ballinasloe",
         "description": "Orla (and whoever wants to come). Pick up Mam's prescription at Hanley's on the way. Dinner at Mam's, home by 7.",
         "attendees": [fam[0]]},
        {"uid": "aoife-dancing@devlin.family", "summary": "Aoife - Irish dancing", "start": "2026-01-08 17:30", "end": "2026-01-08 18:45",
         "rrule": "FREQ=WEEKLY;BYDAY=TH;UNTIL=20260618T220000Z", "location": "Scoil Rince Cladaigh, Claddagh Hall",
         "description": "Fergal drops, Orla collects."},
        {"uid": "cian-football@devlin.family", "summary": "Cian - U16 football training", "start": "2026-01-07 18:30", "end": "2026-01-07 19:45",
         "rrule": "FREQ=WEEKLY;BYDAY=WE;UNTIL=20260527T220000Z", "location": "Cnoc na Carraige GAA pitch"},
        {"uid": "fergal-physio-0312@devlin.family", "summary": "Fergal - physio (shoulder)", "start": "2026-03-12 16:00", "end": "2026-03-12 16:45",
         "location": "Westside Physiotherapy Clinic", "attendees": [fam[1]]},
        {"uid": "fergal-physio-0326@devlin.family", "summary": "Fergal - physio (shoulder)", "start": "2026-03-26 16:00", "end": "2026-03-26 16:45",
         "location": "Westside Physiotherapy Clinic", "attendees": [fam[1]]},
        {"uid": "cian-ptm-0319@devlin.family", "summary": "Cian - 3rd year parent-teacher meeting", "start": "2026-03-19 16:00", "end": "2026-03-19 19:00",
         "location": "Corrib Valley College, sports hall", "description": "Slots booked: Maths 16:20, French 16:35, English 16:50.", "attendees": fam},
        {"uid": "santiago-2026@devlin.family", "summary": "Santiago de Compostela", "allday": True, "start": "2026-04-03", "end": "2026-04-09",
         "location": "Santiago de Compostela", "description": "Flights AQ7KZP. Apartment Rúa do Vilar 14.", "attendees": fam},
        {"uid": "aoife-feis-0418@devlin.family", "summary": "Aoife - Galway Feis", "start": "2026-04-18 08:30", "end": "2026-04-18 14:00",
         "location": "Leisureland, Salthill"},
        {"uid": "mam-ortho-0514@devlin.family", "summary": "Mam - ortho clinic (Orla driving)", "start": "2026-05-14 11:15", "end": "2026-05-14 12:30",
         "location": "Suck Valley Regional Hospital, Ballinasloe", "description": "Clinic 3. Bring her medication list. Pádraig in Dublin that day.",
         "attendees": [fam[0]], "stamp": "20260429T074000Z"},
        {"uid": "cian-jc-start@devlin.family", "summary": "Cian - Junior Cycle exams start", "allday": True, "start": "2026-06-03", "end": "2026-06-04"},
        {"uid": "bins-green@devlin.family", "summary": "Bins - green (recycling) out", "start": "2026-01-05 20:00", "end": "2026-01-05 20:15",
         "rrule": "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO"},
    ], "2026-05-10 08:00", "Shared with Fergal")

    ics_calendar("calendar/College.ics", "Claddagh CC", [
        {"uid": "ty-team-wed@claddaghcc.ie", "summary": "TY team meeting", "start": "2026-01-07 13:10", "end": "2026-01-07 13:50",
         "rrule": "FREQ=WEEKLY;BYDAY=WE;UNTIL=20260520T220000Z", "exdates": ["2026-02-18 13:10", "2026-02-25 13:10", "2026-03-04 13:10", "2026-04-01 13:10", "2026-04-08 13:10"],
         "location": "Room 14", "description": "Orla, Yvonne, Shane, Nora. Agenda on Teams.", "organizer": ("Orla Devlin", "o.devlin@claddaghcc.ie")},
        {"uid": "staffmtg-0114@claddaghcc.ie", "summary": "Staff meeting", "start": "2026-01-14 15:45", "end": "2026-01-14 17:00", "location": "Library"},
        {"uid": "staffmtg-0311@claddaghcc.ie", "summary": "Staff meeting", "start": "2026-03-11 15:45", "end": "2026-03-11 17:00", "location": "Library"},
        {"uid": "staffmtg-0513@claddaghcc.ie", "summary": "Staff meeting", "start": "2026-05-13 15:45", "end": "2026-05-13 17:00", "location": "Library"},
        {"uid": "mocks-2026@claddaghcc.ie", "summary": "Mock exams (3rd and 6th years)", "allday": True, "start": "2026-02-02", "end": "2026-02-14"},
        {"uid": "belfast-2026@claddaghcc.ie", "summary": "TY Belfast trip", "allday": True, "start": "2026-03-04", "end": "2026-03-06",
         "location": "Belfast", "description": "48 students, 4 staff. Linen Quarter Hostel, group ref LQH-G2603."},
        {"uid": "ptm-3y-0326@claddaghcc.ie", "summary": "Parent-teacher meeting - 3rd year", "start": "2026-03-26 16:00", "end": "2026-03-26 19:00", "location": "GP hall"},
        {"uid": "we-block2@claddaghcc.ie", "summary": "TY work experience - block 2", "allday": True, "start": "2026-03-23", "end": "2026-03-28"},
        {"uid": "cp-0422@claddaghcc.ie", "summary": "Croke Park session - AI and assessment", "start": "2026-04-22 15:45", "end": "2026-04-22 17:45", "location": "Library"},
        {"uid": "geog-fieldtrip-0428@claddaghcc.ie", "summary": "1C Geography field trip - Salthill", "start": "2026-04-28 09:00", "end": "2026-04-28 13:00",
         "location": "Salthill / Blackrock", "description": "With Gearóid + 1 TY helper. Wet gear."},
        {"uid": "ty-info-0506@claddaghcc.ie", "summary": "TY information evening", "start": "2026-05-06 19:30", "end": "2026-05-06 21:00", "location": "GP hall"},
        {"uid": "summer-exams-2026@claddaghcc.ie", "summary": "Summer exams - 1st and 2nd years", "allday": True, "start": "2026-05-19", "end": "2026-05-23"},
        {"uid": "cp-0520@claddaghcc.ie", "summary": "Croke Park session - planning", "start": "2026-05-20 15:45", "end": "2026-05-20 18:45", "location": "Library"},
    ], "2026-05-13 18:00", "Work calendar")


# ----------------------------------------------------------------------------------------
# Notes, choir
# ----------------------------------------------------------------------------------------

def build_notes() -> None:
    put("notes/meal plan w-c 2026-02-23.md", """# Dinners w/c 23 Feb

- Mon: slow cooker beef and Guinness stew (on before school - I'm at Spanish till 9)
- Tue: Fergal - pasta (choir night), spag bol from the freezer
- Wed: salmon, baby potatoes, greens
- Thu: wraps after dancing - quick
- Fri: chipper - Harbour Fish Bar
- Sat: Fergal's burgers
- Sun: roast chicken (no Mam this week)

Shopping extras: stewing beef, Guinness, wraps, salmon x4
""", "2026-02-22 19:30")
    put("notes/meal plan w-c 2026-03-16.md", """# Dinners w/c 16 March

- Mon: slow cooker chicken curry - ready when I'm back from Spanish
- Tue: St Patrick's Day - parade in town; no choir tonight but Fergal still on pasta duty - pesto pasta + garlic bread
- Wed: fish pie (Cian training at 6:30, eat at 5:45)
- Thu: St Patrick's week - omelettes and chips, quick before dancing
- Fri: Harbour Fish Bar
- Sat: Cian's pizza night
- Sun: Mam's for dinner

Remember: Cian's PTM Thursday 19th
""", "2026-03-15 20:05")
    put("notes/meal plan w-c 2026-04-20.md", """# Dinners w/c 20 April

- Mon: slow cooker pulled pork (Spanish is over but it's still the easiest Monday)
- Tue: Fergal does pasta - choir, concert week!
- Wed: chicken stir fry
- Thu: dress rehearsal 7:30 - leftovers, Fergal collects Aoife from dancing
- Fri: takeaway
- Sat: CONCERT - early dinner, beans on toast at 5
- Sun: roast lamb, Mam's for dessert? (no - Mam Sunday is 3 May)
""", "2026-04-19 21:12")
    put("notes/report writing checklist.md", """# Report writing - my routine (Christmas and summer)

1. Export the marks from VSware as CSV (Assessments > Export) into Work/tools/ - one file per class, e.g. marks_3B_christmas_2025.csv.
2. Check the column headers end in the section maximum (section_a_60, section_b_40).
3. Run the grade script: `python3 grade_calc.py marks_3B_christmas_2025.csv --level jc` (use `--level lc` for 5th/6th years).
4. It writes marks_..._graded.csv next to the input - sanity-check the spread in the notebook (3B results check.ipynb).
5. Paste totals and descriptors into the class results spreadsheet (Work/History/results/).
6. Write comments - one strength, one target. No comment longer than 2 lines.
7. Upload grades + comments to VSware before the deadline (summer 2026: Wednesday 27 May).
8. Send Declan my 5th year comments for the shared class.
""", "2025-12-12 17:40")
    put("notes/holiday wishlist.md", """# Holidays - ideas and rules

Rules for family trips (learned the hard way):
- Self-catering only: a kitchen and a washing machine. No hotels with the kids - eating out three times a day kills the budget.
- Two bedrooms minimum so Cian has his own space.
- Walkable to a town or a beach, so nobody has to drive every day.
- Book flights early (the November sale) - Santiago cost half of what the summer fares were.

Ideas:
- Summer 2026: West Cork? Or back to Donegal (Glenveagh View again - Aoife wants the farm cat).
- 2027: Bilbao + San Sebastián by train.
- Fergal: the Aran Islands for a night, cycling.
""", "2026-04-12 21:30")
    put("notes/books 2026.md", """# Books 2026

| Title | Author | Finished | Verdict |
|---|---|---|---|
| The Bee Sting | Paul Murray | 2026-01-05 | 5/5 - book club Jan |
| Prophet Song | Paul Lynch | 2026-02-01 | 4/5, harrowing |
| Small Things Like These | Claire Keegan | 2026-03-01 | reread, still perfect |
| Intermezzo | Sally Rooney | 2026-04-02 | 3/5 - Fergal liked it more |
| La sombra del viento (graded reader A2) | C. R. Zafón (adapted) | 2026-03-28 | for Spanish |
| Held | Anne Michaels | reading | book club May |
""", "2026-04-02 23:00")
    put("notes/swim kit.md", """# Swim kit (winter)

- Dryrobe + woolly hat + neoprene gloves and socks (Jan-Mar)
- Tow float (orange) - always at Silverstrand, the bay is wide
- Flask: hot chocolate, not tea
- Rule: minutes in the water ≈ water temperature in degrees, less when it's below 9
- Never alone: Maeve or Sinéad on weekdays, Fergal or Aoife on Sundays
- Check the tide and the wind on Windy before leaving - Blackrock is rough in a south-westerly
""", "2026-01-03 10:30")
    put("notes/Mam.md", """# Mam - notes

- GP: Dr Fitzgerald, Ballinasloe. Pharmacy: Hanley's (repeat prescription collected on my Sundays).
- Meds: amlodipine 5 mg morning, atorvastatin 20 mg night, paracetamol for the knee (max 6 a day).
- Knee: referred to ortho, appointment 14 May 11:15 Suck Valley (I'm taking her - need cover for periods 3-5).
- Pádraig does Wednesdays and the shopping; I do every second Sunday.
- She'd like to come to the spring concert - collect her Saturday afternoon, stays the night.
""", "2026-04-29 07:40")
    put("notes/todo.md", """# To do

- [x] Belfast: rooming list to hostel
- [x] Belfast: dietary list to hostel + Harland's
- [ ] Ask Colm for cover on 14 May (Mam's appointment)
- [ ] Bleed upstairs radiators (boiler man said)
- [x] Aoife's passport renewal
- [ ] Cian - book grinds for French?
- [ ] Croke Park form - add 6 May TY evening
""", "2026-05-02 09:10")


def build_choir() -> None:
    pdf = PDF("Spring Concert 2026 programme", "Galway Bay Singers", "2026-04-20 20:00")
    pdf.line("Galway Bay Singers", 18, True)
    pdf.line("Spring Concert - Saturday 25 April 2026, 8 pm", 12, True)
    pdf.line("St Nicholas' Collegiate Church, Galway   Musical director: Lorcan Hehir   Piano: Eimear Costello", 9)
    pdf.space(10)
    pdf.line("Programme", 13, True)
    for piece, who in [("Ave Maria", "Franz Biebl"), ("The Parting Glass", "trad., arr. L. Hehir"), ("Cantique de Jean Racine", "Gabriel Fauré"),
                       ("Dúlamán", "trad., arr. Michael McGlynn"), ("Interval - tea and scones in the north aisle", ""),
                       ("Las Amarillas", "Stephen Hatfield"), ("Sanctus (The Armed Man)", "Karl Jenkins"),
                       ("An Raibh Tú ag an gCarraig?", "trad., arr. L. Hehir"), ("Bring Me Little Water, Silvy", "Lead Belly, arr. Moira Smiley")]:
        pdf.row([piece, who], [56, 330])
    pdf.space(10)
    pdf.para("Tickets €15 / concession €10. Proceeds to the COPE Galway Waterside House appeal. Thank you to the Collegiate "
             "Church for the use of the building.", 9)
    pdf.save("choir/Spring concert 2026 programme.pdf", "2026-04-20 20:30")

    pdf = PDF("Christmas Concert 2025 programme", "Galway Bay Singers", "2025-12-05 20:00")
    pdf.line("Galway Bay Singers", 18, True)
    pdf.line("Christmas Concert - Saturday 13 December 2025, 8 pm", 12, True)
    pdf.line("St Nicholas' Collegiate Church, Galway", 9)
    pdf.space(10)
    for piece, who in [("O Magnum Mysterium", "Morten Lauridsen"), ("Don Oíche úd i mBeithil", "trad."), ("Gaudete", "arr. Brian Kay"),
                       ("In the Bleak Midwinter", "Harold Darke"), ("Carol of the Bells", "Leontovych"), ("O Holy Night", "Adam, arr. Hehir")]:
        pdf.row([piece, who], [56, 330])
    pdf.save("choir/Christmas concert 2025 programme.pdf", "2025-12-05 20:40")

    put("choir/rehearsal notes.md", """# Rehearsal notes - alto 2

## 13 Jan
New term. Biebl Ave Maria - altos split at bar 12. Breathe at the commas, not mid-phrase.

## 3 Feb
Dúlamán: the consonants! "Dúlamán na binne buí" - crisp, not sung through.

## 24 Mar
Lorcan: altos rushing the entry in The Parting Glass (bar 29). Las Amarillas off by heart by the dress rehearsal.

## 14 Apr
Sanctus much better. Stand in the second row, next to Mairéad. Concert blacks + the teal scarf (new - collect from Lorcan).

## 21 Apr
Last rehearsal before the dress. Run the whole programme twice.
""", "2026-04-21 22:20")


# ----------------------------------------------------------------------------------------
# Apps: the "Dipper" sea-swim log (SQLite), last year's export
# ----------------------------------------------------------------------------------------

SWIMS: list[dict] = []


def water_temp(d: dt.date) -> float:
    pts = [(dt.date(2026, 1, 1), 9.6), (dt.date(2026, 2, 10), 7.9), (dt.date(2026, 3, 10), 8.2),
           (dt.date(2026, 4, 10), 9.9), (dt.date(2026, 5, 20), 11.9)]
    for (a, ta), (b, tb) in zip(pts, pts[1:]):
        if a <= d <= b:
            return ta + (tb - ta) * (d - a).days / (b - a).days
    return pts[-1][1]


def mam_sunday(d: dt.date) -> bool:
    return d.weekday() == 6 and (d - dt.date(2026, 1, 11)).days % 14 == 0 and d != dt.date(2026, 4, 5)


def build_swims() -> None:
    r = rng("swims")
    away = {dt.date(2026, 3, 4), dt.date(2026, 3, 5)} | {dt.date(2026, 4, k) for k in range(3, 9)}
    easter_hols = {dt.date(2026, 3, 30) + dt.timedelta(days=k) for k in range(12)}
    midterm = {dt.date(2026, 2, 16) + dt.timedelta(days=k) for k in range(5)}
    storms = {dt.date(2026, 1, 23), dt.date(2026, 2, 6), dt.date(2026, 3, 18)}
    d = dt.date(2026, 1, 2)
    while d <= dt.date(2026, 5, 15):
        wd = d.weekday()
        row = None
        if d in away or d in storms:
            pass
        elif wd in (0, 2, 4):
            if r.random() < 0.9 and not (dt.date(2026, 2, 18) <= d <= dt.date(2026, 3, 2) and wd == 2):
                holiday = d in easter_hols or d in midterm
                hh, mm = (9, r.choice([15, 30, 40])) if holiday else (7, r.choice([5, 10, 10, 15, 15, 20]))
                who = r.choice(["Maeve, Sinéad", "Maeve, Sinéad", "Maeve", "Sinéad", "Maeve, Sinéad"])
                row = dict(spot="Blackrock, Salthill", time=f"{hh:02d}:{mm:02d}", who=who)
        elif wd == 6 and not mam_sunday(d) and r.random() < 0.85:
            row = dict(spot="Silverstrand, Barna", time=f"10:{r.choice([15, 30, 30, 45])}", who=r.choice(["Fergal", "Fergal, Aoife", "Aoife", "Fergal, Aoife, Cian"]))
        if d == dt.date(2026, 5, 9):
            row = dict(spot="Blackrock, Salthill", time="05:50", who="Maeve, Sinéad + DIL crowd")
        if d == dt.date(2026, 2, 1):
            row = dict(spot="Silverstrand, Barna", time="10:30", who="Fergal")
        if row:
            t = water_temp(d) + r.uniform(-0.3, 0.3) - (0.5 if row["spot"].startswith("Silver") else 0.0)
            t = max(t, 7.4)
            if d == dt.date(2026, 2, 1):
                t = 7.1
            t = round(t, 1)
            mins = int(round(max(7, min(25, (t - 5.5) * 4 + r.uniform(-2, 2)))))
            air = round(t + r.uniform(-4, 3), 0)
            note = ""
            if d == dt.date(2026, 2, 1):
                note = "Coldest yet - fingers gone, Fergal on the beach with the flask"
            elif d == dt.date(2026, 5, 9):
                note = "Darkness into Light - sunrise swim, hundreds in the water"
            elif r.random() < 0.12:
                note = r.choice(["Lovely and calm", "Choppy, stayed near the steps", "Jellyfish (moon) - harmless", "Hail on the way out!",
                                 "Seal off the diving board", "Knee OK on the steps"])
            SWIMS.append(dict(date=d.isoformat(), start_time=row["time"], spot=row["spot"], water_temp_c=t, air_temp_c=air,
                              minutes=mins, with_whom=row["who"], notes=note))
        d += dt.timedelta(days=1)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dipper.sqlite"
        con = sqlite3.connect(path)
        con.executescript("""
            PRAGMA page_size = 4096;
            CREATE TABLE spots (id INTEGER PRIMARY KEY, name TEXT NOT NULL, area TEXT, notes TEXT);
            CREATE TABLE swims (id INTEGER PRIMARY KEY, date TEXT NOT NULL, start_time TEXT, spot TEXT NOT NULL,
                                water_temp_c REAL, air_temp_c REAL, minutes INTEGER, with_whom TEXT, notes TEXT);
            CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT);
        """)
        con.executemany("INSERT INTO spots (name, area, notes) VALUES (?, ?, ?)", [
            ("Blackrock, Salthill", "Salthill Prom", "Diving tower and steps; best at high tide; rough in a SW wind"),
            ("Silverstrand, Barna", "Barna", "Sandy, shallow, wide bay; good for the kids; car park fills by 11"),
            ("Ladies' Beach, Salthill", "Salthill Prom", "Sheltered; used when Blackrock is too rough"),
        ])
        con.executemany("INSERT INTO swims (date, start_time, spot, water_temp_c, air_temp_c, minutes, with_whom, notes) VALUES (?,?,?,?,?,?,?,?)",
                        [(s["date"], s["start_time"], s["spot"], s["water_temp_c"], s["air_temp_c"], s["minutes"], s["with_whom"], s["notes"]) for s in SWIMS])
        con.executemany("INSERT INTO settings VALUES (?, ?)", [("units", "metric"), ("owner", "Orla"), ("goal_2026", "100 swims"),
                                                                ("export_last", "2026-01-01 dipper-export-2025.csv")])
        con.commit()
        con.close()
        put("apps/dipper/dipper.sqlite", path.read_bytes(), "2026-05-15 08:02")
    for i, s in enumerate(SWIMS, start=1):
        s["rowid"] = i

    # last year's export (colder water in February 2025)
    r = rng("swims-2025")
    rows = []
    d = dt.date(2025, 1, 3)
    while d <= dt.date(2025, 12, 31):
        if d.weekday() in (0, 2, 4) and r.random() < 0.7:
            doy = d.timetuple().tm_yday
            t = 11.5 - 4.6 * math.cos((doy - 40) / 365 * 2 * math.pi) + r.uniform(-0.4, 0.4)
            if d == dt.date(2025, 2, 12):
                t = 6.3
            t = max(round(t, 1), 6.5 if d != dt.date(2025, 2, 12) else 6.3)
            rows.append([d.isoformat(), f"07:{r.choice(['05', '10', '15', '20'])}", "Blackrock, Salthill", f"{t:.1f}",
                         int(max(7, min(40, (t - 5.5) * 4))), r.choice(["Maeve", "Maeve, Sinéad", "Sinéad", ""])])
        d += dt.timedelta(days=1)
    write_csv("Downloads/dipper-export-2025.csv", ["date", "start_time", "spot", "water_temp_c", "minutes", "with_whom"], rows, "2026-01-01 11:20")


# ----------------------------------------------------------------------------------------
# Downloads (public documents), Desktop, screenshots, voice notes
# ----------------------------------------------------------------------------------------

def exam_timetable(rel: str, title: str, pages: list[list[tuple[str, list[tuple[str, str]]]]], intro: str, mtime: str) -> None:
    pdf = PDF(title, "State Examinations Commission", mtime, "SEC publishing")
    pdf.footer = title + " - provisional, subject to change"
    pdf.line(title, 14, True)
    pdf.para(intro, 9)
    for i, page in enumerate(pages):
        if i:
            pdf.new_page()
            pdf.line(title + " (continued)", 11, True)
        pdf.row(["Date", "Time", "Subject and level"], [56, 200, 290], 9.5, True)
        for date, slots in page:
            first = True
            for time, subj in slots:
                pdf.row([date if first else "", time, subj], [56, 200, 290], 9.5)
                first = False
            pdf.space(3)
    pdf.save(rel, mtime)


def build_downloads() -> None:
    exam_timetable("Downloads/SEC Junior Cycle 2026 timetable.pdf", "Junior Cycle Examination 2026 - Timetable", [
        [("Wednesday 3 June", [("09:30 - 12:30", "English - Higher level"), ("09:30 - 11:30", "English - Ordinary level"), ("14:00 - 16:00", "Home Economics")]),
         ("Thursday 4 June", [("09:30 - 11:30", "Irish - Higher level"), ("09:30 - 11:00", "Irish - Ordinary level"), ("14:00 - 16:00", "Business Studies")]),
         ("Friday 5 June", [("09:30 - 12:00", "Mathematics - Higher level"), ("09:30 - 11:30", "Mathematics - Ordinary level"), ("14:00 - 16:00", "Religious Education")]),
         ("Monday 8 June", [("09:30 - 11:30", "Science"), ("14:00 - 15:30", "Music")]),
         ("Tuesday 9 June", [("09:30 - 11:30", "French"), ("14:00 - 16:00", "German"), ("14:00 - 16:00", "Spanish")])],
        [("Wednesday 10 June", [("09:30 - 11:30", "History"), ("14:00 - 15:30", "Wood Technology")]),
         ("Thursday 11 June", [("09:30 - 11:30", "Geography"), ("14:00 - 16:00", "Engineering")]),
         ("Friday 12 June", [("09:30 - 11:00", "Italian"), ("14:00 - 15:30", "Visual Art (written)")]),
         ("Monday 15 June", [("09:30 - 11:30", "Applied Technology"), ("14:00 - 16:00", "Graphics")]),
         ("Tuesday 16 June", [("09:30 - 11:30", "Classics"), ("14:00 - 15:30", "Jewish Studies")]),
         ("Wednesday 17 June", [("09:30 - 11:00", "Ancient Greek"), ("14:00 - 15:30", "Latin")])],
    ], "Candidates must be in the examination centre 30 minutes before the start of each examination. Subjects at common level "
       "unless a level is shown. Short courses and CBAs are not examined by the SEC.", "2026-01-30 19:55")
    exam_timetable("Downloads/SEC Leaving Certificate 2026 timetable.pdf", "Leaving Certificate Examination 2026 - Timetable", [
        [("Wednesday 3 June", [("09:30 - 12:20", "English Higher level Paper 1"), ("14:00 - 16:50", "Home Economics")]),
         ("Thursday 4 June", [("09:30 - 12:50", "English Higher level Paper 2"), ("14:00 - 16:30", "Engineering")]),
         ("Friday 5 June", [("09:30 - 12:00", "Mathematics Higher level Paper 1"), ("14:00 - 16:20", "Irish Higher level Paper 1")]),
         ("Monday 8 June", [("09:30 - 12:00", "Mathematics Higher level Paper 2"), ("14:00 - 17:05", "Irish Higher level Paper 2")])],
        [("Tuesday 9 June", [("09:30 - 12:20", "Geography Higher level"), ("14:00 - 16:30", "Biology")]),
         ("Wednesday 10 June", [("09:30 - 12:20", "History Higher level"), ("14:00 - 16:30", "Chemistry")]),
         ("Thursday 11 June", [("09:30 - 12:00", "French Higher level"), ("14:00 - 16:30", "Business")]),
         ("Friday 12 June", [("09:30 - 12:30", "Physics"), ("14:00 - 16:30", "Accounting")])],
    ], "Oral and practical examinations take place before Easter. Candidates must be present 30 minutes before each paper.", "2026-02-02 21:10")

    pdf = PDF("Cold water swimming - stay safe", "Irish Coastal Safety Council", "2025-10-01 09:00")
    pdf.line("Cold water swimming - stay safe", 16, True)
    pdf.line("Irish Coastal Safety Council - winter leaflet", 10)
    pdf.space(6)
    for h, t in [("Cold water shock", "Water below 15 degrees can cause an involuntary gasp and rapid breathing in the first minute. Enter slowly, "
                  "keep your face out of the water and control your breathing: the 1-10-1 rule - one minute to control your breathing, ten minutes of "
                  "meaningful movement, one hour before hypothermia sets in."),
                 ("How long?", "A common rule of thumb is no more minutes than the water temperature in degrees. Below 10 degrees, shorter still."),
                 ("Never swim alone", "Swim with others and tell someone on shore when you expect to be back. Use a brightly coloured tow float."),
                 ("After the swim", "Warm up gradually: dry off, dress in layers, warm drink. Do not take a hot shower straight away - the "
                  "after-drop can make you feel colder 10 minutes after leaving the water."),
                 ("Rips and tides", "Check the tide tables and wind forecast. Swim parallel to the shore if caught in a current.")]:
        pdf.line(h, 12, True)
        pdf.para(t)
    pdf.new_page()
    pdf.line("Signs of hypothermia", 12, True)
    pdf.para("Shivering, slurred speech, clumsiness, confusion. Call 112 or 999 and ask for the Coast Guard if someone in the water is in difficulty.")
    pdf.table(["Water temperature", "Suggested maximum time"], [["6 to 8 degrees", "5 to 8 minutes"], ["8 to 10 degrees", "8 to 12 minutes"],
                                                                 ["10 to 12 degrees", "12 to 18 minutes"], ["12 to 15 degrees", "up to 25 minutes"]], [56, 250])
    pdf.save("Downloads/Cold water swimming - stay safe.pdf", "2025-12-28 16:40")

    pdf = PDF("Circular 0031/2025 - school tours and educational visits", "Department of Education", "2025-09-15 10:00")
    pdf.line("Circular 0031/2025", 14, True)
    pdf.line("Guidance for post-primary schools on school tours and educational visits", 11, True)
    pdf.space(4)
    for t in ["1. Purpose. This circular sets out guidance for boards of management on the planning and approval of school tours, "
              "including overnight and cross-border visits.",
              "2. Approval. All overnight tours require the prior approval of the board of management, a written risk assessment "
              "and the informed written consent of parents or guardians.",
              "3. Supervision ratios. The recommended minimum ratios are one adult to 15 students for day visits in Ireland, "
              "one adult to 10 students for overnight visits outside the State, and higher ratios for adventure activities. "
              "Schools should set their own ratio in the risk assessment in the light of the students' needs.",
              "4. Costs. Schools should be sensitive to the cost of tours and provide for students whose families cannot pay.",
              "5. Cross-border visits. Students travelling to Northern Ireland should carry photo identification; sterling is "
              "needed for purchases.",
              "6. Insurance. Schools must confirm with their insurer that the tour is covered."]:
        pdf.para(t)
    pdf.save("Downloads/Circular 0031-2025 school tours.pdf", "2026-01-11 20:15")

    pdf = PDF("Solar PV at home - a homeowner's guide", "Sustainable Homes Ireland", "2025-05-01 09:00")
    pdf.line("Solar PV at home - a homeowner's guide", 15, True)
    for h, t in [("How much will my panels generate?", "A typical 3 kWp system in the west of Ireland produces about 2,600 kWh a year: 2-4 kWh on a dull "
                  "winter day and 15-20 kWh on a bright day in May or June."),
                 ("Inverter faults", "If the voltage on your local network rises above 253 V, the inverter must disconnect for safety "
                  "(over-voltage protection). It reconnects automatically after a few minutes of normal voltage. Occasional trips on sunny "
                  "afternoons are normal; if it happens more than once a month, contact your installer and the network operator."),
                 ("Export payments", "Your supplier pays for electricity you export through the Clean Export Guarantee, shown as a "
                  "credit on your bill."),
                 ("Maintenance", "Panels need little maintenance. Check the inverter display or app monthly for error codes.")]:
        pdf.line(h, 12, True)
        pdf.para(t)
    pdf.save("Downloads/Solar PV at home - homeowner guide.pdf", "2025-06-10 21:00")


def build_desktop_and_media() -> None:
    put("Desktop/todo.txt", """TODO
- print Belfast consent form list for tutors
- email Niall re coach deposit (20%) -> paid 5 Feb
- Croke Park form: add TY evening 6 May
- Cian French grinds - ask Mme Roussel for names
- renew TV licence (September)
- return Laoise's feis dress
- Mam 14 May: cover P3-P5
""", "2026-04-29 07:35")
    put("Desktop/phone call - Padraig re Mam.txt", """Call with Pádraig, Tue 28 April, ~21:00

- Mam's knee worse on the stairs - sleeping downstairs some nights
- ortho clinic Thu 14 May 11:15 Suck Valley -> I'll take her; ask Colm for cover periods 3-5
- P. keeps doing the Wednesday shopping as usual
- stairlift? get a quote (Pádraig knows someone in Athlone)
- Mam wants to come to the concert on the 25th - Fergal to collect her Saturday at 2
""", "2026-04-28 21:30")

    if not have("ffmpeg"):
        WARNINGS.append("ffmpeg missing: screenshots skipped")
    else:
        png_screenshot("Desktop/Screenshot 2026-03-10 at 18.22.41.png", (1280, 720), [
            {"text": "Messages", "x": 40, "y": 24, "size": 28, "bold": True},
            {"text": "SALTHILL MED", "x": 40, "y": 90, "size": 24, "bold": True},
            {"text": "Tue 10 Mar, 18:21", "x": 560, "y": 140, "size": 20, "color": "0x555555"},
            {"text": "Hi Orla, this is a reminder of your appointment", "x": 70, "y": 190, "size": 26},
            {"text": "with Dr Quirke on Thu 12/03/26 at 09:40.", "x": 70, "y": 228, "size": 26},
            {"text": "Please arrive 5 mins early. Reply C to cancel.", "x": 70, "y": 266, "size": 26},
            {"text": "WESTSIDE PHYSIO", "x": 40, "y": 360, "size": 24, "bold": True},
            {"text": "Mon 9 Mar, 12:02", "x": 560, "y": 410, "size": 20, "color": "0x555555"},
            {"text": "Reminder: Orla, physio on Wed 11/03 at 16:30.", "x": 70, "y": 460, "size": 26},
            {"text": "Reply YES to confirm.", "x": 70, "y": 498, "size": 26},
            {"text": "YES", "x": 1080, "y": 560, "size": 26, "bold": True},
        ], "2026-03-10 18:22", boxes=[(50, 175, 720, 135, "0xE6E6E6"), (50, 445, 720, 97, "0xE6E6E6"), (1050, 548, 110, 50, "0xBBBBBB")])
        png_screenshot("Desktop/Screenshot 2026-04-02 at 21.14.03.png", (1280, 720), [
            {"text": "Atlantica Air - Online check-in", "x": 40, "y": 30, "size": 30, "bold": True},
            {"text": "Booking AQ7KZP   Flight AQ 4312   Fri 3 Apr 2026", "x": 40, "y": 100, "size": 24},
            {"text": "Shannon (SNN) 07:25  ->  Santiago de Compostela (SCQ) 10:35", "x": 40, "y": 140, "size": 24},
            {"text": "Check-in complete - your seats", "x": 40, "y": 220, "size": 26, "bold": True},
            {"text": "Orla Devlin        Seat 17C", "x": 60, "y": 280, "size": 26},
            {"text": "Fergal Devlin      Seat 18C", "x": 60, "y": 325, "size": 26},
            {"text": "Cian Devlin        Seat 17B", "x": 60, "y": 370, "size": 26},
            {"text": "Aoife Devlin       Seat 17A (window)", "x": 60, "y": 415, "size": 26},
            {"text": "Boarding passes sent to orla.devlin@mailbox.ie", "x": 40, "y": 500, "size": 22},
            {"text": "Bag drop closes 40 minutes before departure.", "x": 40, "y": 540, "size": 22},
        ], "2026-04-02 21:14", boxes=[(30, 205, 800, 260, "0xEEEEEE")])
        png_screenshot("Pictures/Screenshots/Screenshot_20260502-080519.png", (540, 960), [
            {"text": "TideWatch", "x": 30, "y": 30, "size": 30, "bold": True},
            {"text": "Galway Bay", "x": 30, "y": 90, "size": 28},
            {"text": "Sat 2 May", "x": 30, "y": 135, "size": 24},
            {"text": "Sea temperature 10.8 C", "x": 30, "y": 220, "size": 30, "bold": True},
            {"text": "High tide 08:47 (4.9 m)", "x": 30, "y": 300, "size": 26},
            {"text": "Low tide 14:58 (0.6 m)", "x": 30, "y": 345, "size": 26},
            {"text": "High tide 21:09 (4.7 m)", "x": 30, "y": 390, "size": 26},
            {"text": "Wind SW 18 km/h, gusts 31", "x": 30, "y": 470, "size": 26},
            {"text": "Sunrise 05:58  Sunset 21:11", "x": 30, "y": 515, "size": 26},
        ], "2026-05-02 08:05", boxes=[(20, 205, 500, 60, "0xDDDDDD")])

    voice_note("voice notes/2026-01-21 hostel call.wav", [
        "Note to self after the call with the Linen Quarter Hostel in Belfast.",
        "They can hold forty eight student beds and two twin rooms for the staff on the night of the fourth of March.",
        "They offered us the basement games room for the students on the Wednesday evening, free of charge, from nine until eleven.",
        "The bag room closes at five on the Thursday, so the bus has to collect the bags before then.",
        "I still need to send them the rooming list and the dietary list by the twenty second of February.",
        "Ask Yvonne to check the rooming list first.",
    ], "2026-01-21 16:48")
    voice_note("voice notes/2026-03-24 after choir.wav", [
        "Notes after choir, Tuesday the twenty fourth of March.",
        "Lorcan says the altos are rushing the entry in The Parting Glass at bar twenty nine, so count the rest properly.",
        "Las Amarillas has to be off by heart by the dress rehearsal on the twenty third of April.",
        "Collect the new teal scarf from him before the concert, and ask Mairead for two more ticket books.",
    ], "2026-03-24 21:58")
    voice_note("voice notes/2026-04-06 Santiago.wav", [
        "Monday in Santiago, day four.",
        "Pilgrims' mass at noon, and they did swing the botafumeiro. Aoife was thrilled.",
        "Dinner tomorrow at the Galo Azul, booked for eight, a table for four.",
        "Cian wants to come back some summer and walk the last hundred kilometres of the Camino from Sarria.",
        "The train to A Coruna is forty minutes, so maybe Tuesday if it's dry.",
    ], "2026-04-06 22:31")


# ========================================================================================
# Questions (qa.json): locators are resolved against the generated files
# ========================================================================================

MODALITY = {"pdf": "document", "docx": "document", "xlsx": "document", "pptx": "document", "png": "image",
            "wav": "audio"}


def ext_of(rel: str) -> str:
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


def L_slide(rel: str, needle: str, part: str = "body") -> dict:
    hits = [i + 1 for i, s in enumerate(REG[rel]["slides"]) if needle in "\n".join(s)]
    return {"unit": "slide", "position": {"slide": _unique(hits, f"{rel}: {needle}"), "part": part}}


def L_rows(rel: str, sheet: str, needles: list[str]) -> dict:
    rows = REG[rel]["sheets"][sheet]
    out = []
    for n in needles:
        out.append(_unique([i + 1 for i, r in enumerate(rows) if n in r], f"{rel}/{sheet}: {n}"))
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


def L_sqlite(table: str, rowid: int) -> dict:
    return {"unit": "row", "position": {"table": table, "rowid": rowid}}


def L_event(rel: str, uid: str) -> dict:
    return {"unit": "event", "position": {"uid": uid, "summary": REG[rel]["events"][uid]["summary"]}}


def hms(t: float) -> str:
    t = int(t)
    return f"{t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}"


def L_time(rel: str, needle: str) -> dict:
    segs = [s for s in REG[rel]["segments"] if needle in s[2]]
    start, end, _ = _unique(segs, f"{rel}: {needle}")
    return {"unit": "timestamp", "position": f"{hms(math.floor(start))}–{hms(math.ceil(end))}"}


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


def L_eml(rel: str, needle: str) -> None:
    """E-mail evidence: the whole message. Dentate makes one `message` unit per e-mail with no
    line range, so a `line` locator could never be matched; like images, e-mails get an empty
    locator list. The needle must still be in the file."""
    line_no(rel, needle)
    return None


def build_questions() -> list[dict]:
    qs: list[dict] = []
    S = ["semantic_search"]

    # --- factual retention -----------------------------------------------------------
    f = "Admin/House/Corrib Heating invoice 2026-03-04.pdf"
    qs.append(Q("p2_01", "How much did the boiler service cost me this year, and what part did they have to replace?",
                f"€{FACTS['boiler_total_2026']} including VAT (invoice CH-26-0318, 4 March 2026); the condensate trap was cracked and was replaced (€18.50). Last year's service was €{FACTS['boiler_total_2025']}.",
                "factual_retention",
                [ev(f, "Replacement condensate trap 1 18.50 18.50 … TOTAL DUE €145.85", [L_page(f, "TOTAL DUE")])],
                cap(S + ["temporal_filter"], ["pdf_text_and_tables"], ["direct_lookup", "entity_disambiguation"]),
                steps=[f"Two Corrib Heating invoices exist (2025 and 2026); this year's is {f}. Its table lists the replacement condensate trap (€18.50) and the total due, €{FACTS['boiler_total_2026']}."]))

    f = "Work/TY/Belfast trip 2026/Belfast itinerary FINAL.docx"
    qs.append(Q("p2_02", "What time does the bus leave the college on the first morning of the TY Belfast trip?",
                "06:30 from Claddagh Community College (students in the car park for roll call at 06:15), per the FINAL itinerary; the earlier drafts said 07:00 (v1) and 06:45 (v2).",
                "factual_retention",
                [ev(f, "06:30 | Coach departs Claddagh Community College | Driver: Gerry Fallon", [L_page(f, "06:30 | Coach departs")])],
                cap(S, ["document_parsing"], ["direct_lookup", "version_resolution"]),
                steps=["Three versions of the itinerary exist (v1, v2, FINAL, plus a copy of v2 on the Desktop); only the FINAL one counts. Day 1 of the FINAL itinerary: students at 06:15, coach departs at 06:30."]))

    f = "Work/TY/Belfast trip 2026/trip payments.xlsx"
    pr = FACTS["pay_rows"]
    loc = L_rows(f, "Payments", ["Jamie Forde", "Ella Mulkerrin", "Rían Hession", "TOTAL"])
    qs.append(Q("p2_03", "When I last updated the Belfast trip payments, how many students still hadn't paid in full, and how much was outstanding altogether?",
                "Three students (Jamie Forde €110, Ella Mulkerrin €110, Rían Hession €60): €280 outstanding in total, as of 26 February 2026.",
                "factual_retention",
                [ev(f, "Jamie Forde … Outstanding 110; Ella Mulkerrin … 110; Rían Hession … 60; TOTAL outstanding 280", [loc])],
                cap(S, ["spreadsheet_reading"], ["counting", "arithmetic", "temporal_reasoning"]),
                steps=["In the Payments sheet of the trip workbook (last updated 26/02/2026), three rows have a non-zero Outstanding €: Jamie Forde 110, Ella Mulkerrin 110, Rían Hession 60; the TOTAL row gives 280. (A TY bulletin from 13 February still spoke of 9 outstanding.)"]))

    f = "calendar/Orla.ics"
    qs.append(Q("p2_04", "What time do I have to be at the church for the choir's spring concert?",
                "Call time is 7:00 pm at the side door on Lombard Street (warm-up in the vestry) for the 8:00 pm concert on Saturday 25 April 2026 at St Nicholas' Collegiate Church.",
                "factual_retention",
                [ev(f, "SUMMARY:Galway Bay Singers - Spring Concert; DTSTART 2026-04-25 20:00; DESCRIPTION: Call time 19:00 at the side door on Lombard Street", [L_event(f, "gbs-spring-concert-2026@orla.devlin")])],
                cap(S + ["temporal_filter"], ["calendar_reading"], ["direct_lookup", "entity_disambiguation"]),
                steps=["The calendar has a Christmas concert (call 18:30), weekly rehearsals and a dress rehearsal; the spring concert event on 25 April says: call time 19:00 at the side door, concert 20:00."]))

    qs.append(Q("p2_05", "When is the last night of my Spanish evening class this term?",
                "Monday 30 March 2026, 7–9 pm at the Westside Resource Centre (weekly on Mondays from 19 January, no class on 16 February).",
                "factual_retention",
                [ev(f, "SUMMARY:Spanish 2 - Westside Adult Ed; RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260330T220000Z; EXDATE 2026-02-16", [L_event(f, "spanish2-mon-2026@orla.devlin")])],
                cap(S + ["temporal_filter"], ["calendar_recurrence_expansion"], ["recurrence_expansion", "temporal_reasoning"])))

    f = "Work/TY/TY information evening 2026.pptx"
    qs.append(Q("p2_06", "What TY contribution per student did I tell parents about at this year's information evening?",
                "€350 per student for 2026-27, payable in two instalments of €175 (by 1 September and by 1 December); the Belfast trip is paid separately. Last year's slides said €320.",
                "factual_retention",
                [ev(f, "TY contribution 2026-27: €350 per student; Payable in two instalments: €175 by 1 September and €175 by 1 December", [L_slide(f, "TY contribution 2026-27")])],
                cap(S + ["temporal_filter"], ["slide_reading"], ["direct_lookup", "version_resolution"])))

    f = "Admin/Finance/current account 2026-03.csv"
    qs.append(Q("p2_07", "How much was the gas direct debit in March, and what day did it come out of my account?",
                f"€{FACTS['gas_dd_3']:.2f} (DD WPG GAS LEVELPAY 2044190) on 20 March 2026 — the same day as the €118.00 electricity level-pay debit.",
                "factual_retention",
                [ev(f, "20/03/2026,DD WPG GAS LEVELPAY 2044190,121.60", [L_csv(f, "DD WPG GAS LEVELPAY")])],
                cap(S + ["temporal_filter"], ["table_parsing"], ["direct_lookup", "entity_disambiguation"])))

    cold = min(SWIMS, key=lambda s: s["water_temp_c"])
    qs.append(Q("p2_08", "What's the coldest water I've swum in so far this year, and where was that?",
                f"{cold['water_temp_c']} °C at {cold['spot']} on Sunday 1 February 2026 ({cold['minutes']} minutes, with {cold['with_whom']}).",
                "factual_retention",
                [ev("apps/dipper/dipper.sqlite", f"{cold['date']} | {cold['start_time']} | {cold['spot']} | {cold['water_temp_c']} | {cold['minutes']} min | {cold['notes']}", [L_sqlite("swims", cold["rowid"])])],
                cap(S + ["temporal_filter"], ["database_query"], ["aggregation", "comparison"]),
                steps=["In the Dipper app database (swims table, 2026 only) the lowest water_temp_c is 7.1 at Silverstrand on 2026-02-01. Last year's export in Downloads has colder readings, but the question is about this year."]))

    f = "Travel/2026-04 Santiago/ideas.md"
    qs.append(Q("p2_09", "Which restaurant did Maeve tell me to book in Santiago, and what should I order there?",
                "Taberna O Galo Azul on Rúa da Raíña — book ahead (it's tiny) and order the pulpo á feira and the tarta de Santiago.",
                "factual_retention",
                [ev(f, "Maeve's tip: book Taberna O Galo Azul on Rúa da Raíña for dinner - ask for the pulpo á feira and the tarta de Santiago.", [L_lines(f, "Maeve's tip")])],
                cap(S, ["text_reading"], ["direct_lookup", "entity_disambiguation"])))

    f = "Travel/2026-04 Santiago/check-in instructions - Rua do Vilar 14.txt"
    qs.append(Q("p2_10", "What was the key box code for our apartment in Santiago?",
                "4819 (grey key box to the right of the street door at Rúa do Vilar 14). The Donegal cottage's code, 2706, is a different place.",
                "factual_retention",
                [ev(f, "Key box code: 4819", [L_lines(f, "Key box code:")])],
                cap(S, ["text_reading"], ["direct_lookup", "entity_disambiguation"])))

    f = "Travel/2026-04 Santiago/Atlantica Air e-ticket AQ7KZP.pdf"
    qs.append(Q("p2_11", "What was our flight number home from Santiago, and what time were we due to land?",
                "AQ 4317 on Wednesday 8 April 2026, departing Santiago at 18:55 and landing at Shannon at 20:10.",
                "factual_retention",
                [ev(f, "AQ 4317  Wed 8 Apr 2026  Santiago SCQ  18:55  Shannon SNN  20:10", [L_page(f, "AQ 4317")])],
                cap(S, ["pdf_text_and_tables"], ["direct_lookup"])))

    f = "Admin/House/solar/inverter-2026-04.log"
    qs.append(Q("p2_12", "When did the solar inverter drop off the grid in April, and for how long?",
                "On 17 April 2026: a GRID_OVERVOLTAGE fault at 13:52:10 disconnected it, and it reconnected at 14:39:12 — offline for about 47 minutes.",
                "factual_retention",
                [ev(f, "2026-04-17 13:52:10 ERROR grid: fault GRID_OVERVOLTAGE … 2026-04-17 14:39:12 INFO grid: voltage normal for 300 s, output reconnected (offline 47 min)",
                    [L_lines(f, "13:52:10 ERROR grid", "14:39:12 INFO  grid")])],
                cap(S + ["temporal_filter"], ["log_parsing"], ["direct_lookup", "temporal_reasoning"])))

    f = "Work/tools/grade_calc.py"
    qs.append(Q("p2_13", "In my grade calculator, what's the lowest percentage that still gets a Higher Merit?",
                "75% (Higher Merit covers 75–89; 90 and above is Distinction).",
                "factual_retention",
                [ev(f, '(75, "Higher Merit"),', [L_lines(f, '(75, "Higher Merit")')])],
                cap(S, ["code_reading"], ["direct_lookup"])))

    f = "Admin/House/heating schedule.json"
    down = [i for i, l in enumerate(file_lines(f), 1) if '"from": "06:30", "to": "08:15"' in l]
    qs.append(Q("p2_14", "What temperature is the downstairs heating set to on weekday mornings, and between what times?",
                "20.5 °C from 06:30 to 08:15 on weekdays (upstairs is only 19 °C, from 06:15 to 07:45).",
                "factual_retention",
                [ev(f, '"name": "Downstairs" … "weekdays": [{"from": "06:30", "to": "08:15", "temp_c": 20.5, "label": "morning"}', [{"unit": "line", "position": {"start": _unique(down, "downstairs"), "end": _unique(down, "downstairs")}}])],
                cap(S, ["json_parsing"], ["direct_lookup", "entity_disambiguation"])))

    f = "Work/meetings/staff meeting 2026-03-11 minutes.docx"
    qs.append(Q("p2_15", "What did we decide at the March staff meeting about the summer exams for first and second years?",
                "They run from Tuesday 19 May to Friday 22 May 2026, in class groups in their own rooms (no sports hall); TY and 5th years get in-class assessments in the week of 18 May instead, and 3rd/6th years finish for study leave on 22 May.",
                "factual_retention",
                [ev(f, "Decision: summer exams for 1st and 2nd years will run from Tuesday 19 May to Friday 22 May 2026, in class groups in their own rooms (no sports hall this year).", [L_page(f, "Decision: summer exams")])],
                cap(S + ["temporal_filter"], ["document_parsing"], ["direct_lookup", "entity_disambiguation"])))

    f = "Desktop/Screenshot 2026-03-10 at 18.22.41.png"
    qs.append(Q("p2_16", "What time was my appointment with Dr Quirke in March?",
                "Thursday 12 March 2026 at 09:40 at Salthill Medical Centre (arrive 5 minutes early).",
                "factual_retention",
                [ev(f, "SALTHILL MED: Hi Orla, this is a reminder of your appointment with Dr Quirke on Thu 12/03/26 at 09:40.", [])],
                cap(S + ["cross_modal_retrieval"], ["image_ocr"], ["direct_lookup", "visual_text_reading"])))

    f = "Desktop/Screenshot 2026-04-02 at 21.14.03.png"
    qs.append(Q("p2_17", "Which seat did Aoife have on our flight out to Santiago?",
                "17A, the window seat (Orla 17C, Cian 17B, Fergal 18C) on AQ 4312 on 3 April.",
                "factual_retention",
                [ev(f, "Aoife Devlin  Seat 17A (window)", [])],
                cap(S + ["cross_modal_retrieval"], ["image_ocr"], ["direct_lookup", "visual_text_reading"])))

    f = "voice notes/2026-01-21 hostel call.wav"
    qs.append(Q("p2_18", "When I rang the Belfast hostel, what did they offer us for the students on the Wednesday evening?",
                "The basement games room, free of charge, from 9 until 11 pm.",
                "factual_retention",
                [ev(f, "They offered us the basement games room for the students on the Wednesday evening, free of charge, from nine until eleven.", [L_time(f, "basement games room")])],
                cap(S + ["cross_modal_retrieval"], ["speech_transcription"], ["direct_lookup"])))

    f = "Inbox/2026-02-03 RE Belfast TY trip - revised coach quote.eml"
    qs.append(Q("p2_19", "What was the final price Corrib Coach Hire quoted me for the Belfast bus?",
                "€2,480.00 incl. VAT (revised on 3 February once the Giant's Causeway leg was dropped; the first quote was €2,650).",
                "factual_retention",
                [ev(f, "Revised total: €2,480.00 incl. VAT", [L_eml(f, "Revised total:")])],
                cap(S + ["temporal_filter"], ["email_parsing"], ["direct_lookup", "version_resolution"])))

    f = "Work/admin/Croke Park hours 2024-26.xlsx"
    qs.append(Q("p2_20", "How many Croke Park hours have I logged so far this school year, and how many are still to do?",
                "24.5 of the 33 hours are logged for 2025-26, so 8.5 remain — 3 of those are the planning session already booked for 20 May.",
                "factual_retention",
                [ev(f, "Total 24.5 (logged so far, excludes 20 May, booked); Remaining (of 33) 8.5", [L_rows(f, "2025-26", ["Total |", "Remaining (of 33)"])])],
                cap(S, ["spreadsheet_reading"], ["direct_lookup", "entity_disambiguation"]),
                steps=["The workbook has a sheet per school year; the current one is 2025-26, not 2024-25. Its Total row says 24.5 hours (excluding the booked 20 May session) and the Remaining row 8.5."]))

    f = "Downloads/SEC Junior Cycle 2026 timetable.pdf"
    qs.append(Q("p2_21", "When is Cian's Junior Cycle Geography exam?",
                "Thursday 11 June 2026, 09:30–11:30 (the Leaving Cert Geography paper on 9 June is a different exam).",
                "factual_retention",
                [ev(f, "Thursday 11 June  09:30 - 11:30  Geography", [L_page(f, "Thursday 11 June")])],
                cap(S + ["temporal_filter"], ["pdf_text_and_tables"], ["direct_lookup", "entity_disambiguation"])))

    f1 = "Travel/2026-04 Santiago/Atlantica Air e-ticket AQ7KZP.pdf"
    f2 = "Inbox/2025-11-22 Booking confirmation - Apartamento Rua do Vilar.eml"
    qs.append(Q("p2_22", "How much did the flights and the apartment for the Santiago trip come to altogether?",
                "€1,760.36: €1,148.36 for the four return flights (booking AQ7KZP) plus €612.00 for five nights at the Rúa do Vilar apartment.",
                "factual_retention",
                [ev(f1, "Total paid (Visa debit ending 4417) €1,148.36", [L_page(f1, "Total paid")]),
                 ev(f2, "Price for 5 nights: €612.00 (including tourist tax and cleaning)", [L_eml(f2, "Price for 5 nights")])],
                cap(S + ["multi_file_retrieval"], ["pdf_text_and_tables", "email_parsing"], ["cross_file_join", "arithmetic"])))

    # --- profiling ---------------------------------------------------------------------
    f = "calendar/Family.ics"
    f2 = "notes/Mam.md"
    qs.append(Q("p2_23", "How often do I go down to Ballinasloe to see Mam, and when?",
                "Every second Sunday afternoon, 1–6 pm (from 11 January; the Easter Sunday visit on 5 April was skipped for Santiago), picking up her repeat prescription at Hanley's on the way; Pádraig covers Wednesdays and her shopping.",
                "profiling",
                [ev(f, "SUMMARY:Visit Mam - Ballinasloe; RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=SU; 13:00-18:00; EXDATE 2026-04-05", [L_event(f, "mam-sunday@devlin.family")]),
                 ev(f2, "Pádraig does Wednesdays and the shopping; I do every second Sunday.", [L_lines(f2, "I do every second Sunday")])],
                cap(S + ["multi_file_retrieval"], ["calendar_recurrence_expansion", "text_reading"], ["recurrence_expansion", "pattern_induction"]), profiling_type="scheduling"))

    wk = [s for s in SWIMS if dt.date.fromisoformat(s["date"]).weekday() in (0, 2, 4)]
    early = [s for s in wk if s["start_time"].startswith("07:")]
    picks = []
    for month in ("01", "02", "03", "04", "05"):
        picks += [s for s in early if s["date"][5:7] == month][:2]
    times = sorted({s["start_time"] for s in early})
    mins = sorted(s["minutes"] for s in early)
    lo, hi = mins[len(mins) // 10], mins[(len(mins) * 9) // 10]
    feb = [s["minutes"] for s in early if s["date"][5:7] == "02"]
    qs.append(Q("p2_24", "What's my usual sea-swimming routine on weekdays — where, what time, and who with?",
                f"Monday, Wednesday and Friday mornings at Blackrock in Salthill, getting in between {times[0]} and {times[-1]} before school "
                f"({len(early)} of my {len(wk)} weekday swims), always with Maeve and/or Sinéad; usually {lo}–{hi} minutes in the water, shortest in February (about {round(sum(feb) / len(feb))} minutes). "
                "In the school holidays I go later, around 9:15–9:40.",
                "profiling",
                [ev("apps/dipper/dipper.sqlite", "Mon/Wed/Fri rows: Blackrock, Salthill, 07:05–07:20, with Maeve and/or Sinéad",
                    [L_sqlite("swims", s["rowid"]) for s in picks])],
                cap(S, ["database_query"], ["pattern_induction", "aggregation"]), profiling_type="behavioral_patterns"))

    evs = []
    amounts = []
    for month in ("2026-02", "2026-03", "2026-04"):
        rel = f"Admin/Finance/current account {month}.csv"
        lines = BANK_LINES[month]["DUNNES STORES KNOCKNACARRA"]
        text = file_lines(rel)
        amounts += [float(text[n - 1].split(",")[2]) for n in lines]
        evs.append(ev(rel, f"DUNNES STORES KNOCKNACARRA on every Saturday of {dt.date.fromisoformat(month + '-01').strftime('%B')}",
                      [{"unit": "row", "position": {"line": n}} for n in lines]))
    qs.append(Q("p2_25", "Where and on what day do I do the big weekly shop, and what does it usually come to?",
                f"Saturdays at Dunnes Stores in Knocknacarra, usually €{min(amounts):.0f}–€{max(amounts):.0f} (about €{sum(amounts) / len(amounts):.0f} a week); "
                "smaller midweek top-ups at Lidl on the Headford Road.",
                "profiling", evs,
                cap(S + ["multi_file_retrieval", "temporal_filter"], ["table_parsing"], ["pattern_induction", "aggregation"]),
                profiling_type="preferences"))

    f1 = "Inbox/2025-11-22 Booking confirmation - Apartamento Rua do Vilar.eml"
    f2 = "Travel/2025-08 Donegal/cottage arrival info.txt"
    f3 = "notes/holiday wishlist.md"
    qs.append(Q("p2_26", "What kind of accommodation do I tend to book for family holidays?",
                "Self-catering places — an apartment in Santiago, a cottage in Donegal — with a kitchen and a washing machine and at least two bedrooms, never hotels (eating out three times a day with the kids kills the budget).",
                "profiling",
                [ev(f1, "Entire apartment · 2 bedrooms · fully equipped kitchen · washing machine · self check-in", [L_eml(f1, "Entire apartment")]),
                 ev(f2, "Glenveagh View is a self-catering cottage: 3 bedrooms … washing machine in the utility room", [L_lines(f2, "Glenveagh View is a self-catering cottage", "kitchen with oven")]),
                 ev(f3, "Self-catering only: a kitchen and a washing machine. No hotels with the kids", [L_lines(f3, "Self-catering only")])],
                cap(S + ["multi_file_retrieval"], ["email_parsing", "text_reading"], ["pattern_induction", "cross_file_synthesis"]),
                profiling_type="preferences"))

    mp = ["notes/meal plan w-c 2026-02-23.md", "notes/meal plan w-c 2026-03-16.md", "notes/meal plan w-c 2026-04-20.md"]
    evs = []
    for rel in mp:
        lines = file_lines(rel)
        a = line_no(rel, "- Mon:")
        evs.append(ev(rel, lines[a - 1][2:] + " / " + lines[a][2:], [{"unit": "line", "position": {"start": a, "end": a + 1}}]))
    qs.append(Q("p2_27", "What do we usually have for dinner on the nights I'm out at Spanish and choir?",
                "Mondays (Spanish) are slow-cooker nights — a stew, curry or pulled pork put on in the morning; on Tuesdays (choir) Fergal cooks pasta.",
                "profiling", evs,
                cap(S + ["multi_file_retrieval"], ["text_reading"], ["pattern_induction"]),
                profiling_type="behavioral_patterns"))

    f1 = "School/Cian/Cian report Christmas 2024.pdf"
    f2 = "School/Cian/Cian report Christmas 2025.pdf"
    qs.append(Q("p2_28", "How did Cian's marks change between his Christmas report last year and this year?",
                "Most subjects went up a few points; Maths improved the most, from 58% to 74% (+16), while French dropped from 71% to 62% (-9). Wood Technology stayed his best subject (80% → 84%).",
                "profiling",
                [ev(f1, "Mathematics Higher Mr Dooley 58% … French Higher Mme Roussel 71% … Wood Technology 80%", [L_page(f1, "Mathematics")]),
                 ev(f2, "Mathematics Higher Mr Dooley 74% … French Higher Mme Roussel 62% … Wood Technology 84%", [L_page(f2, "Mathematics")])],
                cap(S + ["multi_file_retrieval", "temporal_filter"], ["pdf_text_and_tables"], ["comparison", "temporal_ordering", "arithmetic"]),
                profiling_type="retrospective"))

    f1 = "notes/report writing checklist.md"
    f2 = "Work/tools/grade_calc.py"
    qs.append(Q("p2_29", "What's my routine for turning exam marks into the grades that go on school reports?",
                "Export the class marks from VSware as CSV into Work/tools, run grade_calc.py on it (--level jc for Junior Cycle descriptors, --level lc for H-grades), which writes a _graded.csv with total % and grade; sanity-check it in the notebook, paste into the class results spreadsheet, write comments and upload to VSware before the deadline.",
                "profiling",
                [ev(f1, "Export the marks from VSware as CSV … Run the grade script … Upload grades + comments to VSware", [L_lines(f1, "1. Export the marks", "7. Upload grades")]),
                 ev(f2, "Reads a marks export (CSV …) and writes <name>_graded.csv with the total percentage and the grade … --level jc / --level lc", [L_lines(f2, "Reads a marks export", "--level lc")])],
                cap(S + ["multi_file_retrieval"], ["text_reading", "code_reading"], ["procedure_reconstruction", "cross_file_synthesis"]),
                profiling_type="workflows"))

    bl = ["Inbox/2026-02-06 TY bulletin - week 5.eml", "Inbox/2026-02-13 TY bulletin - week 6.eml", "Inbox/2026-02-27 TY bulletin - week 7.eml"]
    evs = []
    for rel in bl:
        dline = next(l for l in file_lines(rel) if l.startswith("Date:"))
        evs.append(ev(rel, dline, [L_eml(rel, "Date:")]))
    qs.append(Q("p2_30", "When do I usually send out the weekly TY bulletin to staff?",
                "On Friday afternoons after school, between about 3:45 and 4:05 pm (6, 13 and 27 February), covering the week ahead.",
                "profiling", evs,
                cap(S + ["multi_file_retrieval", "metadata_search"], ["email_parsing"], ["pattern_induction", "temporal_reasoning"]),
                profiling_type="scheduling"))
    return qs


# ========================================================================================
# Main
# ========================================================================================

def build_all() -> None:
    build_admin()
    build_finance()
    build_inbox()
    build_work()
    build_school()
    build_travel()
    build_calendars()
    build_notes()
    build_choir()
    build_swims()
    build_downloads()
    build_desktop_and_media()


def set_mtimes() -> None:
    for rel, d in MTIMES.items():
        ts = d.timestamp()
        os.utime(HOME / rel, (ts, ts))
    # folders: the newest file inside
    folders: dict[Path, float] = {}
    for rel, d in MTIMES.items():
        p = (HOME / rel).parent
        while p != HOME.parent:
            folders[p] = max(folders.get(p, 0.0), d.timestamp())
            p = p.parent
    for p, ts in sorted(folders.items(), key=lambda kv: -len(kv[0].parts)):
        os.utime(p, (ts, ts))


def check_pdfs() -> int:
    """Every PDF page's recorded lines must come out of pdftotext in order: prose lines in
    pdftotext's default reading-order mode, table rows (one aligned Courier line each) in
    -layout mode, which keeps rows together (default mode splits aligned columns into blocks)."""
    bad = 0
    if not have("pdftotext"):
        print("pdftotext missing: --check skipped")
        return 0
    for rel, info in REG.items():
        if info["kind"] != "pdf":
            continue
        for n, lines in enumerate(info["pages"], start=1):
            for mode in ("default", "layout"):
                args = ["pdftotext"] + (["-layout"] if mode == "layout" else []) + ["-f", str(n), "-l", str(n), str(HOME / rel), "-"]
                flat = " ".join(subprocess.run(args, capture_output=True, text=True).stdout.split())
                pos = 0
                for line, mono in zip(lines, info["mono"][n - 1]):
                    if mode == "default" and mono:
                        continue
                    want = " ".join(line.split())
                    i = flat.find(want, pos)
                    if i < 0:
                        print(f"PDF check ({mode}): {rel} p.{n}: not found in order: {want!r}")
                        bad += 1
                        break
                    pos = i + len(want)
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="check every PDF page with pdftotext")
    args = ap.parse_args()
    if HOME.exists():
        shutil.rmtree(HOME)
    HOME.mkdir()
    build_all()
    set_mtimes()
    questions = build_questions()
    QA_PATH.write_text(json.dumps(questions, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    files = sorted(MTIMES)
    size = sum((HOME / f).stat().st_size for f in files)
    print(f"wrote {len(files)} files ({size / 1e6:.2f} MB) to {HOME}, {len(questions)} questions to {QA_PATH.name}")
    for w in WARNINGS:
        print("warning:", w)
    if args.check:
        bad = check_pdfs()
        print("PDF check:", "ok" if not bad else f"{bad} problem(s)")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
