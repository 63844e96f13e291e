#!/usr/bin/env python3
"""Generate the Dentate sample personal profile (samples/profile/).

Fictional person: Rosalind "Ros" Achterberg, owner of The Lantern Bookshop in
Bristol, UK, February - April 2024.  Everything is invented and deterministic:
fixed seeds, fixed timestamps, normalised zip members.  Re-running produces the
same files (byte-identical for everything except, possibly, ffmpeg outputs on a
different ffmpeg build).

Run (see samples/README.md):
    python3 -m venv /tmp/sgen
    /tmp/sgen/bin/pip install python-docx openpyxl python-pptx reportlab pillow piexif numpy odfpy
    apt-get install -y ffmpeg
    /tmp/sgen/bin/python samples/generate.py
    python3 samples/generate.py --restore-mtimes   # after a git checkout (stdlib only)
"""
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
import struct
import subprocess
import sys
import tempfile
import wave
import zipfile
from zoneinfo import ZoneInfo

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "profile")
TZ = ZoneInfo("Europe/London")
FONT_DIR = "/usr/share/fonts/truetype/dejavu"

random.seed(20240301)


# ---------------------------------------------------------------- helpers
def p(rel):
    path = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


STAMPS = {}


def stamp(rel, when):
    """Set mtime/atime to a local Europe/London time 'YYYY-MM-DD HH:MM'."""
    t = dt.datetime.strptime(when, "%Y-%m-%d %H:%M").replace(tzinfo=TZ)
    ts = t.timestamp()
    os.utime(p(rel), (ts, ts))
    STAMPS[rel] = (int(ts), t.isoformat())


MTIMES = os.path.join(HERE, "mtimes.tsv")


def write_mtimes():
    """Git does not keep mtimes; record them so --restore-mtimes can re-apply them."""
    with open(MTIMES, "w", encoding="utf-8", newline="\n") as f:
        f.write("# path (under profile/)\tmtime (unix seconds)\tlocal time (Europe/London)\n")
        for rel in sorted(STAMPS):
            f.write("%s\t%d\t%s\n" % (rel, STAMPS[rel][0], STAMPS[rel][1]))


def restore_mtimes():
    """Re-apply the story mtimes to a checked-out profile (stdlib only)."""
    n = 0
    with open(MTIMES, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rel, ts, _ = line.rstrip("\n").split("\t")
            os.utime(os.path.join(OUT, rel), (int(ts), int(ts)))
            n += 1
    print("restored mtimes of %d files" % n)


def write_text(rel, text, when, encoding="utf-8"):
    with open(p(rel), "w", encoding=encoding, newline="\n") as f:
        f.write(text)
    stamp(rel, when)


def write_bytes(rel, data, when):
    with open(p(rel), "wb") as f:
        f.write(data)
    stamp(rel, when)


FIXED_ZIP_TIME = (2024, 1, 1, 0, 0, 0)


def normalize_zip(rel, iso="2024-01-01T00:00:00Z"):
    """Rewrite a zip container with fixed member times and fixed core dates."""
    path = p(rel)
    with zipfile.ZipFile(path) as z:
        items = [(i, z.read(i.filename)) for i in z.infolist()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for info, data in items:
            if info.filename in ("docProps/core.xml",):
                s = data.decode("utf-8")
                s = re.sub(r"(<dcterms:created[^>]*>)[^<]*(<)", r"\g<1>%s\2" % iso, s)
                s = re.sub(r"(<dcterms:modified[^>]*>)[^<]*(<)", r"\g<1>%s\2" % iso, s)
                data = s.encode("utf-8")
            if info.filename == "meta.xml":
                s = data.decode("utf-8")
                s = re.sub(r"(<meta:creation-date>)[^<]*(<)", r"\g<1>%s\2" % iso[:-1], s)
                s = re.sub(r"(<dc:date>)[^<]*(<)", r"\g<1>%s\2" % iso[:-1], s)
                data = s.encode("utf-8")
            zi = zipfile.ZipInfo(info.filename, date_time=FIXED_ZIP_TIME)
            zi.compress_type = info.compress_type
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data)
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def font(size, bold=False, mono=False):
    from PIL import ImageFont
    name = "DejaVuSansMono.ttf" if mono else ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    return ImageFont.truetype(os.path.join(FONT_DIR, name), size)


def money(x):
    return "£{:,.2f}".format(x)


# ---------------------------------------------------------------- shared data
# Daily takings, Mon-Sat, 1 Feb - 30 Mar 2024 (shop closed Sundays).
SPECIAL_DAYS = {
    dt.date(2024, 2, 14): (1043.20, 241.30, 96, "Blind Date with a Book promotion"),
    dt.date(2024, 3, 9): (1168.40, 244.40, 104, "Saturday before Mother's Day - best day of the quarter"),
    dt.date(2024, 3, 4): (0.0, 0.0, 0, "Closed - annual stock-take"),
}


def takings_rows():
    rows = []
    d = dt.date(2024, 2, 1)
    rng = random.Random(7)
    while d <= dt.date(2024, 3, 30):
        if d.weekday() != 6:
            if d in SPECIAL_DAYS:
                card, cash, cust, note = SPECIAL_DAYS[d]
            else:
                if d.weekday() == 5:
                    total = rng.uniform(760, 1150)
                else:
                    total = rng.uniform(310, 720)
                cash = round(total * rng.uniform(0.14, 0.24), 2)
                card = round(total - cash, 2)
                cust = int(total / rng.uniform(11.5, 14.5))
                note = ""
                if d == dt.date(2024, 3, 16):
                    note = "Last day before shelving install - back room cleared"
                if d == dt.date(2024, 3, 18):
                    note = "First day with new oak shelving"
            rows.append((d, round(card, 2), round(cash, 2), round(card + cash, 2), cust, note))
        d += dt.timedelta(days=1)
    return rows


TAKINGS = takings_rows()


# ---------------------------------------------------------------- PDFs
def _pdf_canvas(target, title, author, subject=""):
    from reportlab.pdfgen import canvas
    from reportlab.lib.pagesizes import A4
    c = canvas.Canvas(target, pagesize=A4, invariant=1, pageCompression=0)
    c.setTitle(title)
    c.setAuthor(author)
    if subject:
        c.setSubject(subject)
    c.setCreator("Dentate sample generator")
    return c


def _para(c, text, x, y, width=480, size=11, leading=15, fontname="Helvetica"):
    from reportlab.lib.utils import simpleSplit
    c.setFont(fontname, size)
    for line in simpleSplit(text, fontname, size, width):
        c.drawString(x, y, line)
        y -= leading
    return y - 6


def _footer(c, label):
    c.setFont("Helvetica", 9)
    c.drawCentredString(297, 30, label)


def make_business_plan():
    rel = "Documents/Shop/Lantern Business Plan 2024-2026.pdf"
    c = _pdf_canvas(p(rel), "The Lantern Bookshop - Business Plan 2024-2026", "Rosalind Achterberg")
    # page labels: i, ii, iii then 1, 2, 3, 4
    c.addPageLabel(0, style="ROMAN_LOWER", start=1)
    c.addPageLabel(3, style="ARABIC", start=1)
    # i - cover
    c.setFont("Helvetica-Bold", 26)
    c.drawString(72, 640, "The Lantern Bookshop")
    c.setFont("Helvetica", 16)
    c.drawString(72, 610, "Business Plan 2024-2026")
    c.setFont("Helvetica", 11)
    c.drawString(72, 570, "27 Cotham Parade, Bristol BS6 5QT")
    c.drawString(72, 554, "Prepared by Rosalind Achterberg, owner, February 2024")
    c.drawString(72, 538, "For: Avon Community Bank (meeting with Nadia Rahman, 20 February 2024)")
    _footer(c, "i")
    c.showPage()
    # ii - contents
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "Contents")
    y = 730
    for t, n in [("Executive summary", "iii"), ("1. Background", "1"), ("2. Sales and market", "2"),
                 ("3. The back-room project", "3"), ("4. Finance and borrowing", "4")]:
        c.setFont("Helvetica", 11)
        c.drawString(72, y, t)
        c.drawRightString(520, y, n)
        y -= 18
    _footer(c, "ii")
    c.showPage()
    # iii - executive summary
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "Executive summary")
    y = 730
    y = _para(c, "The Lantern Bookshop is an independent general bookshop opened in September 2016. "
                 "Turnover in the 2023 calendar year was £186,400 with a gross margin of 41%. "
                 "The plan for 2024-2026 is to turn the unused back room into a second selling space "
                 "and to grow turnover to £201,000 in 2024.", 72, y)
    y = _para(c, "Two options are being considered for the back room: a small cafe counter or a "
                 "children's corner with low shelving, a reading bench and a weekly story time. "
                 "A decision will be taken by early March 2024 after advice from our accountant.", 72, y)
    _footer(c, "iii")
    c.showPage()
    # 1 - background
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "1. Background")
    y = 730
    y = _para(c, "The shop occupies a Victorian shop unit of 64 square metres, of which the back room "
                 "(19 square metres) is currently used only for storage and the monthly reading group. "
                 "The lease runs until June 2031 at £14,800 per year.", 72, y)
    y = _para(c, "Staff: Rosalind Achterberg (owner, full time) and Aoife Brennan (bookseller, Thursdays "
                 "and Saturdays). Opening hours: Monday to Saturday, 9:30 to 17:30; closed Sundays.", 72, y)
    _footer(c, "1")
    c.showPage()
    # 2 - sales and market, with a table
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "2. Sales and market")
    y = _para(c, "Sales by category, calendar year 2023:", 72, 730)
    rows = [("Category", "Sales 2023", "Share"),
            ("Fiction", "£61,512", "33%"),
            ("Non-fiction", "£48,464", "26%"),
            ("Children's books", "£33,552", "18%"),
            ("Local interest and maps", "£18,640", "10%"),
            ("Cards, stationery and gifts", "£24,232", "13%"),
            ("Total", "£186,400", "100%")]
    y -= 4
    for i, (a, b, s) in enumerate(rows):
        c.setFont("Helvetica-Bold" if i in (0, len(rows) - 1) else "Helvetica", 11)
        c.drawString(80, y, a)
        c.drawRightString(380, y, b)
        c.drawRightString(460, y, s)
        c.line(72, y - 5, 470, y - 5)
        y -= 20
    y -= 10
    y = _para(c, "Children's books were 18% of 2023 sales (£33,552) and grew faster than any other "
                 "category. Three primary schools within a mile of the shop now order class sets "
                 "from us.", 72, y)
    _footer(c, "2")
    c.showPage()
    # 3 - project
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "3. The back-room project")
    y = 730
    y = _para(c, "Option A, cafe counter: estimated fit-out £16,400 including plumbing, an extraction "
                 "hood and registration as a food business. Option B, children's corner: estimated "
                 "£12,400 for oak shelving, picture-book browser bins, a reading bench, lighting and "
                 "opening stock.", 72, y)
    y = _para(c, "Funding: an application to the West of England Independent Retail Fund (deadline "
                 "15 March 2024) and a small business loan.", 72, y)
    _footer(c, "3")
    c.showPage()
    # 4 - finance
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 760, "4. Finance and borrowing")
    y = 730
    y = _para(c, "We are asking Avon Community Bank for a loan of £6,000 over 24 months. Monthly "
                 "repayments are expected to be about £275 and are affordable from current cash flow.", 72, y)
    y = _para(c, "Target turnover: £201,000 in 2024 and £214,500 in 2025.", 72, y)
    _footer(c, "4")
    c.showPage()
    c.save()
    stamp(rel, "2024-02-18 21:40")


HJ_ADDR = ["Hartcliffe Joinery Ltd", "Unit 6, Bishport Trading Estate", "Bristol BS13 0RA",
           "VAT reg. GB 318 4472 09"]
INVOICE_P1 = [
    ("Oak-faced wall shelving bay, 900 mm", 4, 285.00),
    ("Adjustable shelf, oak-faced", 12, 18.50),
    ("Kick plinth and fixings", 1, 95.00),
    ("Reading bench with storage, birch ply, cushion", 1, 540.00),
    ("Labour: workshop fabrication (hours)", 6, 38.00),
    ("Delivery, van, Bristol BS6", 1, 45.00),
]
INVOICE_P2 = [
    ("Low picture-book browser bin, birch ply", 2, 465.00),
    ("Labour: on-site installation, Sun 17 March (hours)", 7, 38.00),
    ("Extra: move radiator bracket", 1, 60.00),
]
QUOTE_LINES = [
    ("Oak-faced wall shelving bay, 900 mm", 4, 285.00),
    ("Adjustable shelf, oak-faced", 12, 18.50),
    ("Kick plinth and fixings", 1, 95.00),
    ("Reading bench with storage, birch ply", 1, 490.00),
    ("Labour: workshop fabrication (hours)", 6, 38.00),
    ("Delivery, van, Bristol BS6", 1, 45.00),
    ("Low picture-book browser bin, birch ply", 2, 440.00),
    ("Labour: on-site installation (hours, estimate)", 5, 38.00),
]
QUOTE_SUB = sum(q * u for _, q, u in QUOTE_LINES)
QUOTE_TOTAL = round(QUOTE_SUB * 1.2, 2)
DEPOSIT = round(QUOTE_TOTAL * 0.3, 2)
INV_SUB = sum(q * u for _, q, u in INVOICE_P1 + INVOICE_P2)
INV_VAT = round(INV_SUB * 0.2, 2)
INV_TOTAL = round(INV_SUB + INV_VAT, 2)
INV_BALANCE = round(INV_TOTAL - DEPOSIT, 2)


def _item_table(c, y, lines, header=True):
    if header:
        c.setFont("Helvetica-Bold", 10)
        c.drawString(72, y, "Description")
        c.drawRightString(390, y, "Qty")
        c.drawRightString(460, y, "Unit price")
        c.drawRightString(530, y, "Amount")
        c.line(72, y - 5, 530, y - 5)
        y -= 20
    c.setFont("Helvetica", 10)
    for d, q, u in lines:
        c.drawString(72, y, d)
        c.drawRightString(390, y, str(q))
        c.drawRightString(460, y, money(u))
        c.drawRightString(530, y, money(q * u))
        y -= 18
    return y


def _hj_header(c, kind, number, date):
    c.setFont("Helvetica-Bold", 18)
    c.drawString(72, 780, HJ_ADDR[0])
    c.setFont("Helvetica", 9)
    for i, line in enumerate(HJ_ADDR[1:]):
        c.drawString(72, 765 - 12 * i, line)
    c.setFont("Helvetica-Bold", 14)
    c.drawRightString(530, 780, kind)
    c.setFont("Helvetica", 10)
    c.drawRightString(530, 765, number)
    c.drawRightString(530, 752, date)
    c.setFont("Helvetica", 10)
    c.drawString(72, 715, "To: The Lantern Bookshop, Rosalind Achterberg")
    c.drawString(72, 702, "27 Cotham Parade, Bristol BS6 5QT")


def make_invoice():
    rel = "Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf"
    c = _pdf_canvas(p(rel), "Invoice INV-2291", "Hartcliffe Joinery Ltd")
    _hj_header(c, "INVOICE", "Invoice no. INV-2291", "Date: 22 March 2024")
    c.drawString(72, 680, "Job: children's corner shelving, back room. Our quote ref. Q-0871.")
    y = _item_table(c, 650, INVOICE_P1)
    c.setFont("Helvetica-Oblique", 9)
    c.drawString(72, y - 10, "Continued on page 2")
    _footer(c, "Page 1 of 2")
    c.showPage()
    _hj_header(c, "INVOICE", "Invoice no. INV-2291", "Date: 22 March 2024")
    y = _item_table(c, 660, INVOICE_P2)
    y -= 10
    c.line(330, y + 8, 530, y + 8)
    for label, val, bold in [("Subtotal", INV_SUB, False), ("VAT at 20%", INV_VAT, False),
                             ("Total", INV_TOTAL, True),
                             ("Less deposit received 4 March 2024", -DEPOSIT, False),
                             ("Balance due", INV_BALANCE, True)]:
        c.setFont("Helvetica-Bold" if bold else "Helvetica", 10)
        c.drawRightString(460, y, label)
        c.drawRightString(530, y, money(val) if val >= 0 else "-" + money(-val))
        y -= 16
    y -= 20
    y = _para(c, "Payment due by 21 April 2024 (30 days). Bank transfer to Hartcliffe Joinery Ltd, "
                 "sort code 30-94-57, account 48120936, reference INV-2291.", 72, y, size=10, leading=13)
    y = _para(c, "The browser bins were re-priced from £440.00 to £465.00 because of the birch ply "
                 "price rise notified on 11 March.", 72, y, size=10, leading=13)
    _footer(c, "Page 2 of 2")
    c.showPage()
    c.save()
    stamp(rel, "2024-03-22 17:05")


def make_quote_pdf_bytes():
    buf = io.BytesIO()
    c = _pdf_canvas(buf, "Quotation Q-0871", "Hartcliffe Joinery Ltd")
    _hj_header(c, "QUOTATION", "Quote no. Q-0871", "Date: 27 February 2024")
    c.drawString(72, 680, "Children's corner: wall shelving, browser bins and reading bench.")
    y = _item_table(c, 650, QUOTE_LINES)
    y -= 6
    for label, val in [("Subtotal", QUOTE_SUB), ("VAT at 20%", round(QUOTE_SUB * 0.2, 2)),
                       ("Total", QUOTE_TOTAL)]:
        c.setFont("Helvetica-Bold", 10)
        c.drawRightString(460, y, label)
        c.drawRightString(530, y, money(val))
        y -= 16
    y -= 14
    y = _para(c, "This quotation is valid until 31 March 2024. A 30%% deposit of %s secures the "
                 "installation slot on Sunday 17 March 2024 (8:00 start, about five hours, shop closed). "
                 "Timber: FSC-certified European oak veneer on 18 mm birch ply." % money(DEPOSIT),
              72, y, size=10, leading=13)
    y = _para(c, "Quoted by Owen Tally, workshop manager.", 72, y, size=10, leading=13)
    _footer(c, "Page 1 of 1")
    c.showPage()
    c.save()
    return buf.getvalue()


def make_guidance():
    rel = "Downloads/WEIRF_Applicant_Guidance_2024.pdf"
    c = _pdf_canvas(p(rel), "West of England Independent Retail Fund - Applicant Guidance 2024",
                    "West of England Independent Retail Fund")
    pages = [
        ("West of England Independent Retail Fund", [
            "Applicant Guidance, Round 1, 2024. Published January 2024.",
            "The West of England Independent Retail Fund (WEIRF) supports independent shops in Bristol, "
            "Bath and North East Somerset, and South Gloucestershire that want to improve their premises, "
            "reach new customers or make their high street more welcoming.",
            "In 2023 the fund awarded 38 grants worth £211,600 in total. Typical projects included "
            "shop-front repairs, accessible entrances, community spaces inside shops and window displays "
            "that support local events.",
        ]),
        ("Who can apply and how much", [
            "Independent retailers with fewer than 10 employees and a physical shop in the West of England "
            "may apply. Chains, franchises and online-only businesses are not eligible.",
            "Grants range from £1,000 to £7,500 per business. Applicants must provide match funding of at "
            "least 30% of total project costs, from their own funds or a loan.",
            "Eligible costs: fixtures and fittings, lighting, signage, accessibility works, opening stock for "
            "a new department (up to 35% of the project), and launch events. Ineligible costs: rent, "
            "wages, VAT that you can reclaim, and work completed before the date of the grant offer letter.",
        ]),
        ("How to apply", [
            "Apply online through the WEIRF portal. The deadline for Round 1 is Friday 15 March 2024 at "
            "17:00. Late applications cannot be accepted.",
            "Attach two supplier quotes for any item over £1,000, your latest annual accounts and a short "
            "project timeline. Decisions will be emailed by 12 April 2024.",
            "Successful applicants receive 70% of the grant on acceptance and 30% after an end-of-project "
            "report. Questions: the fund team holds drop-in sessions every Thursday in February.",
        ]),
    ]
    for i, (head, paras) in enumerate(pages):
        c.setFillColorRGB(0.1, 0.3, 0.5)
        c.rect(0, 800, 595, 42, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.setFont("Helvetica-Bold", 12)
        c.drawString(72, 815, "WEIRF  |  Applicant Guidance 2024")
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica-Bold", 18)
        c.drawString(72, 760, head)
        y = 730
        for t in paras:
            y = _para(c, t, 72, y)
        _footer(c, "%d" % (i + 1))
        c.showPage()
    c.save()
    stamp(rel, "2024-02-08 13:12")


# ---------------------------------------------------------------- office documents
DRAFT_BUDGET = [("Oak shelving, browser bins and reading bench", 4500), ("Rug, floor cushions and seating", 900),
                ("Lighting (track spots and a reading lamp)", 1400), ("Opening stock of children's books", 4200),
                ("Signage and launch event", 1400)]
FINAL_BUDGET = [("Oak shelving, browser bins and reading bench (Hartcliffe Joinery quote Q-0871)", 4200),
                ("Rug, floor cushions and seating", 650), ("Lighting (track spots and a reading lamp)", 1100),
                ("Opening stock of children's books", 3800), ("Signage and launch event", 1200)]
assert sum(v for _, v in DRAFT_BUDGET) == 12400 and sum(v for _, v in FINAL_BUDGET) == 10950


def make_docx_draft():
    from docx import Document
    from docx.shared import Pt
    rel = "Documents/Grants/WEIRF application draft v1.docx"
    doc = Document()
    cp = doc.core_properties
    cp.author = "Rosalind Achterberg"
    cp.title = "WEIRF application - Children's Corner - DRAFT v1"
    cp.created = dt.datetime(2024, 2, 20, 21, 0)
    cp.modified = dt.datetime(2024, 2, 20, 22, 35)
    cp.last_modified_by = "Rosalind Achterberg"
    cp.revision = 1
    doc.add_heading("West of England Independent Retail Fund - application (DRAFT v1)", level=1)
    doc.add_paragraph("Applicant: Rosalind Achterberg, owner, The Lantern Bookshop, 27 Cotham Parade, "
                      "Bristol BS6 5QT.")
    doc.add_heading("Project summary", level=2)
    doc.add_paragraph("We want to turn our unused back room into a Children's Corner: low oak shelving, two "
                      "picture-book browser bins, a reading bench and a weekly Saturday story time. The back "
                      "room is 19 square metres and is currently used only for storage.")
    doc.add_paragraph("Children's books were 18% of our 2023 sales and are our fastest-growing category. "
                      "Local families have asked for somewhere to sit and read with small children.")
    doc.add_page_break()
    doc.add_heading("Budget", level=2)
    t = doc.add_table(rows=1, cols=2)
    t.style = "Table Grid"
    t.rows[0].cells[0].text = "Item"
    t.rows[0].cells[1].text = "Cost"
    for item, v in DRAFT_BUDGET:
        r = t.add_row().cells
        r[0].text = item
        r[1].text = "£{:,}".format(v)
    r = t.add_row().cells
    r[0].text = "Total project cost"
    r[1].text = "£12,400"
    doc.add_paragraph("")
    doc.add_paragraph("Grant requested: £8,500. Match funding: £3,900 (31% of the total) from a loan "
                      "from Avon Community Bank.")
    doc.add_paragraph("[Note to self: check the maximum grant in the guidance before sending.]")
    doc.add_page_break()
    doc.add_heading("Timeline and outcomes", level=2)
    for line in ["Late February 2024: confirm joinery quote and order furniture.",
                 "Sunday 17 March 2024: shelving installed while the shop is closed.",
                 "Saturday 6 April 2024: Children's Corner opens with a storyteller.",
                 "Outcome target: 150 extra family visits a month and children's sales up 25% by December 2024."]:
        doc.add_paragraph(line, style="List Bullet")
    doc.save(p(rel))
    normalize_zip(rel, "2024-02-20T22:35:00Z")
    stamp(rel, "2024-02-20 22:35")


def make_odt_final():
    from odf.opendocument import OpenDocumentText
    from odf.style import Style, TextProperties, ParagraphProperties
    from odf.text import H, P, List, ListItem
    from odf.meta import InitialCreator, CreationDate
    from odf import dc
    rel = "Documents/Grants/WEIRF application FINAL.odt"
    doc = OpenDocumentText()
    doc.meta.addElement(dc.Title(text="WEIRF application - Children's Corner - FINAL"))
    doc.meta.addElement(dc.Creator(text="Rosalind Achterberg"))
    doc.meta.addElement(InitialCreator(text="Rosalind Achterberg"))
    doc.meta.addElement(CreationDate(text="2024-03-14T20:10:00"))
    doc.meta.addElement(dc.Date(text="2024-03-15T16:30:00"))
    h1 = Style(name="Heading 1", family="paragraph")
    h1.addElement(TextProperties(fontsize="16pt", fontweight="bold"))
    doc.styles.addElement(h1)
    h2 = Style(name="Heading 2", family="paragraph")
    h2.addElement(TextProperties(fontsize="13pt", fontweight="bold"))
    doc.styles.addElement(h2)
    brk = Style(name="PageBreak", family="paragraph")
    brk.addElement(ParagraphProperties(breakbefore="page"))
    doc.automaticstyles.addElement(brk)
    body = doc.text
    body.addElement(H(outlinelevel=1, stylename=h1,
                      text="West of England Independent Retail Fund - application (FINAL, submitted 15 March 2024)"))
    body.addElement(P(text="Applicant: Rosalind Achterberg, The Lantern Bookshop, 27 Cotham Parade, Bristol BS6 5QT."))
    body.addElement(H(outlinelevel=2, stylename=h2, text="Project summary"))
    body.addElement(P(text="The Children's Corner will turn our 19 square metre back room into a welcoming "
                           "space for families: oak shelving, two picture-book browser bins, a reading bench "
                           "and a free story time every Saturday at 11:00. We chose this over a cafe counter "
                           "because the cafe would have cost about £4,000 more and needed food business "
                           "registration."))
    body.addElement(H(outlinelevel=2, stylename=h2, text="Budget"))
    for item, v in FINAL_BUDGET:
        body.addElement(P(text="%s: £%s" % (item, "{:,}".format(v))))
    body.addElement(P(text="Total project cost: £10,950."))
    body.addElement(P(text="Grant requested: £7,200. Match funding: £3,750 (34% of the total) from our "
                           "Avon Community Bank loan. The request was reduced from the £8,500 in our first "
                           "draft to stay under the fund's £7,500 limit."))
    body.addElement(H(outlinelevel=2, stylename=brk, text="Timeline and outcomes"))
    for line in ["Sunday 17 March 2024: shelving installed by Hartcliffe Joinery while the shop is closed.",
                 "Saturday 6 April 2024, 11:00: Children's Corner opening with storyteller Bryony Hale.",
                 "Outcome target: 120 extra family visits a month and children's sales up 20% by December 2024.",
                 "End-of-project report to the fund by 31 October 2024."]:
        body.addElement(P(text="- " + line))
    doc.save(p(rel))
    normalize_zip(rel, "2024-03-15T16:30:00Z")
    stamp(rel, "2024-03-15 16:30")


def make_pptx():
    from pptx import Presentation
    from pptx.util import Pt
    rel = "Documents/Shop/Childrens Corner pitch.pptx"
    prs = Presentation()
    prs.core_properties.author = "Rosalind Achterberg"
    prs.core_properties.title = "Children's Corner - pitch to Avon Community Bank"
    prs.core_properties.created = dt.datetime(2024, 2, 19, 20, 0)
    prs.core_properties.modified = dt.datetime(2024, 2, 19, 23, 10)
    slides = [
        ("The Lantern Bookshop: Children's Corner",
         ["Proposal for Avon Community Bank", "Rosalind Achterberg, 20 February 2024"],
         "Thank Nadia for fitting us in before the half-term rush. Keep it to ten minutes."),
        ("Why a children's corner?",
         ["Children's books: 18% of 2023 sales, fastest-growing category",
          "Three nearby primary schools already order class sets",
          "Back room (19 m2) is only used for storage today"],
         "Mention the mums from the Tuesday toddler group who keep asking where they can sit down with a "
         "buggy. The cafe option is still open but I am leaning towards the children's corner."),
        ("Costs and funding",
         ["Estimated project cost: £12,400",
          "WEIRF grant application: deadline 15 March 2024",
          "Loan requested: £6,000 over 24 months",
          "Own funds: the remainder"],
         "If the grant falls through, the overdraft can cover the shortfall until the summer holidays. "
         "Repayments of roughly £275 a month are about two quiet Tuesdays of takings."),
        ("Timeline",
         ["Quote from Hartcliffe Joinery: end of February",
          "Installation: Sunday 17 March (shop closed)",
          "Opening: Saturday 6 April 2024 with a storyteller"],
         "Ask whether the bank would sponsor the opening-day balloons. Probably not."),
    ]
    for i, (title, bullets, notes) in enumerate(slides):
        layout = prs.slide_layouts[0 if i == 0 else 1]
        s = prs.slides.add_slide(layout)
        s.shapes.title.text = title
        body = s.placeholders[1].text_frame
        body.text = bullets[0]
        for b in bullets[1:]:
            body.add_paragraph().text = b
        s.notes_slide.notes_text_frame.text = notes
    prs.save(p(rel))
    normalize_zip(rel, "2024-02-19T23:10:00Z")
    stamp(rel, "2024-02-19 23:10")


def make_xlsx():
    from openpyxl import Workbook
    from openpyxl.styles import Font
    rel = "Documents/Shop/Takings Feb-Mar 2024.xlsx"
    wb = Workbook()
    wb.properties.creator = "Rosalind Achterberg"
    wb.properties.title = "Daily takings February-March 2024"
    wb.properties.created = dt.datetime(2024, 2, 1, 18, 0)
    wb.properties.modified = dt.datetime(2024, 3, 30, 18, 20)
    ws = wb.active
    ws.title = "Daily takings"
    ws.append(["Date", "Day", "Card (£)", "Cash (£)", "Total (£)", "Customers", "Notes"])
    for c in ws[1]:
        c.font = Font(bold=True)
    for d, card, cash, total, cust, note in TAKINGS:
        ws.append([d, d.strftime("%A"), card, cash, total, cust, note])
        r = ws.max_row
        ws.cell(r, 1).number_format = "yyyy-mm-dd"
        for col in (3, 4, 5):
            ws.cell(r, col).number_format = "#,##0.00"
    ws.column_dimensions["A"].width = 12
    ws.column_dimensions["G"].width = 50
    ws2 = wb.create_sheet("Monthly summary")
    ws2.append(["Month", "Trading days", "Total takings (£)", "Average per trading day (£)", "Best day", "Best day total (£)"])
    for c in ws2[1]:
        c.font = Font(bold=True)
    for m, name in [(2, "February 2024"), (3, "March 2024")]:
        rows = [r for r in TAKINGS if r[0].month == m and r[3] > 0]
        tot = round(sum(r[3] for r in rows), 2)
        best = max(rows, key=lambda r: r[3])
        ws2.append([name, len(rows), tot, round(tot / len(rows), 2), best[0], best[3]])
        ws2.cell(ws2.max_row, 5).number_format = "yyyy-mm-dd"
    ws2.append([])
    ws2.append(["Note", "March trading days exclude Monday 4 March (closed for stock-take)."])
    wb.save(p(rel))
    normalize_zip(rel, "2024-03-30T18:20:00Z")
    stamp(rel, "2024-03-30 18:20")


# ---------------------------------------------------------------- tabular text
def make_bank_csv():
    rel = "Documents/Finance/bank_statement_2024-03.csv"

    def card_week(end):  # card takings of the six trading days before a Friday settlement
        start = end - dt.timedelta(days=7)
        return round(sum(r[1] for r in TAKINGS if start <= r[0] < end), 2)

    tx = [
        ("01/03/2024", "CR", "AVON COMMUNITY BANK LOAN DRAWDOWN REF ACB-77120", None, 6000.00),
        ("01/03/2024", "CR", "PAYFLOW CARD SETTLEMENT", None, card_week(dt.date(2024, 3, 1))),
        ("04/03/2024", "DEB", "HARTCLIFFE JOINERY DEP Q-0871", DEPOSIT, None),
        ("05/03/2024", "DD", "BRISTOL CITY COUNCIL BUSINESS RATES", 112.50, None),
        ("08/03/2024", "CR", "PAYFLOW CARD SETTLEMENT", None, card_week(dt.date(2024, 3, 8))),
        ("11/03/2024", "DEB", "EDITIONS DU HERON LYON EUR 250.44", 214.80, None),
        ("15/03/2024", "DD", "SEVERN BOOKS DISTRIBUTION", 2318.62, None),
        ("15/03/2024", "CR", "PAYFLOW CARD SETTLEMENT", None, card_week(dt.date(2024, 3, 15))),
        ("19/03/2024", "DEB", "OPENLIGHT ELECTRICAL BRISTOL", 684.00, None),
        ("22/03/2024", "CR", "PAYFLOW CARD SETTLEMENT", None, card_week(dt.date(2024, 3, 22))),
        ("25/03/2024", "SO", "COTHAM PARADE PROPERTIES RENT", 1233.33, None),
        ("27/03/2024", "DEB", "PUGH & LOWE ACCOUNTANTS INV 5512", 180.00, None),
        ("28/03/2024", "DD", "AVON COMMUNITY BANK LOAN REPAYMENT", 275.21, None),
        ("29/03/2024", "CR", "PAYFLOW CARD SETTLEMENT", None, card_week(dt.date(2024, 3, 29))),
    ]
    bal = 8412.66
    with open(p(rel), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["Date", "Type", "Description", "Paid out", "Paid in", "Balance"])
        for d, t, desc, out, inn in tx:
            bal = round(bal - (out or 0) + (inn or 0), 2)
            w.writerow([d, t, desc, "%.2f" % out if out else "", "%.2f" % inn if inn else "", "%.2f" % bal])
    stamp(rel, "2024-04-02 09:05")


def isbn13(stem12):
    s = sum(int(ch) * (1 if i % 2 == 0 else 3) for i, ch in enumerate(stem12))
    return stem12 + str((10 - s % 10) % 10)


BOOKS = [  # title, author, section, on hand, rrp, last sold, publisher, pubdate
    ("Salt Roads of Somerset", "Imogen Trask", "Local interest", 7, 14.99, "2024-03-30", "Kingsweston Press", "20240321"),
    ("The Lighthouse Ledger", "Corin Vale", "Fiction", 4, 9.99, "2024-03-28", "Halyard Books", "20230907"),
    ("A Field Guide to British Lichens", "Harriet Moss", "Nature", 0, 24.00, "2024-03-19", "Greenfinch Natural History", "20220512"),
    ("Le Héron qui lisait", "Camille Aubert", "Children's - French", 19, 8.50, "2024-03-29", "Éditions du Héron", "20230118"),
    ("Mabel and the Midnight Bus", "Tess Orford", "Children's - picture books", 12, 7.99, "2024-03-30", "Little Lamp", "20240201"),
    ("Otter Says Sorry", "Ruth Kemble", "Children's - picture books", 9, 6.99, "2024-03-27", "Little Lamp", "20210304"),
    ("The Quiet Canal", "Dominic Eze", "Fiction", 6, 10.99, "2024-03-22", "Halyard Books", "20231012"),
    ("Walking the Avon Gorge", "Pippa Lund", "Local interest", 11, 12.99, "2024-03-30", "Kingsweston Press", "20190606"),
    ("Numbers for Small Shops", "Farid Benyamin", "Business", 2, 16.99, "2024-02-16", "Ledgerline", "20200915"),
    ("Moth Weather", "Selma Quist", "Poetry", 3, 11.00, "2024-03-09", "Tidewrack Poetry", "20231102"),
    ("The Bridge Keeper's Year", "Alun Pryce", "Fiction", 5, 9.99, "2024-03-26", "Halyard Books", "20240111"),
    ("How Bees Vote", "Marta Collings", "Nature", 4, 18.99, "2024-03-15", "Greenfinch Natural History", "20230420"),
    ("Sleepy Stegosaurus", "Jo Whitcombe", "Children's - picture books", 14, 6.99, "2024-03-30", "Little Lamp", "20220825"),
    ("A Short History of Cotham", "Bernard Ollis", "Local interest", 8, 9.50, "2024-03-23", "Kingsweston Press", "20181001"),
    ("The Allotment Almanac", "Gwen Farrow", "Gardening", 6, 15.99, "2024-03-30", "Greenfinch Natural History", "20240208"),
]
BOOK_ISBN = {b[0]: isbn13("97819150%04d" % (1000 + 37 * i)) for i, b in enumerate(BOOKS)}


def make_stock_tsv():
    rel = "Documents/Shop/stock_export_2024-04-02.tsv"
    lines = ["ISBN13\tTitle\tAuthor\tSection\tOn hand\tRRP (GBP)\tLast sold"]
    for b in BOOKS:
        lines.append("\t".join([BOOK_ISBN[b[0]], b[0], b[1], b[2], str(b[3]), "%.2f" % b[4], b[5]]))
    write_text(rel, "\n".join(lines) + "\n", "2024-04-02 08:50")


def make_onix_xml():
    rel = "Downloads/severn_onix_feed_2024-03.xml"
    prods = []
    for b in BOOKS:
        if b[6] not in ("Kingsweston Press", "Little Lamp"):
            continue
        prods.append(f"""  <Product>
    <RecordReference>SEVERN-{BOOK_ISBN[b[0]]}</RecordReference>
    <NotificationType>03</NotificationType>
    <ProductIdentifier>
      <ProductIDType>15</ProductIDType>
      <IDValue>{BOOK_ISBN[b[0]]}</IDValue>
    </ProductIdentifier>
    <DescriptiveDetail>
      <ProductForm>BC</ProductForm>
      <TitleDetail>
        <TitleType>01</TitleType>
        <TitleElement><TitleElementLevel>01</TitleElementLevel><TitleText>{b[0]}</TitleText></TitleElement>
      </TitleDetail>
      <Contributor><ContributorRole>A01</ContributorRole><PersonName>{b[1]}</PersonName></Contributor>
    </DescriptiveDetail>
    <PublishingDetail>
      <Publisher><PublishingRole>01</PublishingRole><PublisherName>{b[6]}</PublisherName></Publisher>
      <PublishingDate><PublishingDateRole>01</PublishingDateRole><Date>{b[7]}</Date></PublishingDate>
    </PublishingDetail>
    <ProductSupply>
      <SupplyDetail>
        <Supplier><SupplierName>Severn Books Distribution Ltd</SupplierName></Supplier>
        <ProductAvailability>21</ProductAvailability>
        <Price><PriceType>02</PriceType><PriceAmount>{b[4]:.2f}</PriceAmount><CurrencyCode>GBP</CurrencyCode></Price>
      </SupplyDetail>
    </ProductSupply>
  </Product>""")
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           '<ONIXMessage release="3.0" xmlns="http://ns.editeur.org/onix/3.0/reference">\n'
           '  <Header>\n    <Sender><SenderName>Severn Books Distribution Ltd</SenderName></Sender>\n'
           '    <Addressee><AddresseeName>The Lantern Bookshop</AddresseeName></Addressee>\n'
           '    <SentDateTime>20240301T0600</SentDateTime>\n'
           '    <MessageNote>New and forthcoming titles, March 2024. Account LANT-0042.</MessageNote>\n'
           '  </Header>\n' + "\n".join(prods) + "\n</ONIXMessage>\n")
    write_text(rel, xml, "2024-03-01 07:14")


# ---------------------------------------------------------------- mail
ROS = "Rosalind Achterberg <ros@lanternbookshop.example>"


def make_mail():
    # 1. plain text
    write_text("Mail/Inbox/2024-02-06 Aoife - Saturday swap.eml", """\
Return-Path: <aoife.brennan@mailbox.example>
From: Aoife Brennan <aoife.brennan@mailbox.example>
To: Rosalind Achterberg <ros@lanternbookshop.example>
Subject: Can I swap Saturday 17th?
Date: Tue, 06 Feb 2024 08:12:44 +0000
Message-ID: <20240206081244.4411@mailbox.example>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

Hi Ros,

My cousin's wedding in Galway has moved to Saturday 17 February, so I can't
do my usual Saturday shift that day. Could I do Thursday 22 February instead
(full day, 9:30 to 5:30)? My brother says he can drive me to the ferry on the
Friday.

Also, yes please to the Small Press Fair in April - put me down for the
afternoon on the stall, from 1pm until packing up.

Thanks a million,
Aoife
""", "2024-02-06 08:12")

    # 2. HTML only
    write_text("Mail/Inbox/2024-02-12 IBN February bulletin.eml", """\
Return-Path: <bulletin@ibn-booksellers.example>
From: Independent Booksellers Network <bulletin@ibn-booksellers.example>
To: ros@lanternbookshop.example
Subject: IBN Bulletin - February 2024: Children's Book Week and the Spring Conference
Date: Mon, 12 Feb 2024 07:00:00 +0000
Message-ID: <bulletin-2024-02.9931@ibn-booksellers.example>
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: 8bit

<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>IBN Bulletin February 2024</title>
<style>body{font-family:Georgia,serif} .box{border:1px solid #ccc;padding:8px}</style></head>
<body>
<h1>IBN Bulletin &mdash; February 2024</h1>
<p>Dear member,</p>
<div class="box">
<h2>Children&rsquo;s Book Week 2024</h2>
<p>Children&rsquo;s Book Week runs from <b>Monday 29 April to Sunday 5 May 2024</b>.
Members can order the free display pack (posters, bunting and 200 bookmarks) until 15 March.</p>
</div>
<div class="box">
<h2>Spring Conference, Leicester</h2>
<p>The IBN Spring Conference takes place on <b>Tuesday 14 May 2024</b> at the Corn Exchange, Leicester.
Early-bird tickets cost &pound;95 for members until 1 March, then &pound;125.</p>
</div>
<p>Tip of the month: shops that run a weekly story time report 12% higher
children&rsquo;s sales on that day.</p>
<p><a href="https://ibn-booksellers.example/unsubscribe">Unsubscribe</a></p>
</body></html>
""", "2024-02-12 07:00")

    # 3. multipart with PDF attachment (the quote exists only as this attachment)
    pdf = make_quote_pdf_bytes()
    b64 = base64.encodebytes(pdf).decode("ascii")
    write_text("Mail/Inbox/2024-02-27 Hartcliffe Joinery - quote Q-0871.eml", """\
Return-Path: <owen@hartcliffejoinery.example>
From: Owen Tally <owen@hartcliffejoinery.example>
To: Rosalind Achterberg <ros@lanternbookshop.example>
Subject: Quote Q-0871 - children's corner shelving
Date: Tue, 27 Feb 2024 16:48:03 +0000
Message-ID: <Q0871.20240227164803@hartcliffejoinery.example>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="==HJ_Q0871_boundary=="

This is a multi-part message in MIME format.

--==HJ_Q0871_boundary==
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

Hello Rosalind,

Thanks for showing me the back room on Friday. Our quotation is attached,
with the oak-faced bays and the two low browser bins we talked about.

If you are happy, a deposit by bank transfer secures the Sunday slot.

Best regards,
Owen Tally
Workshop manager, Hartcliffe Joinery Ltd

--==HJ_Q0871_boundary==
Content-Type: application/pdf; name="Quote_Q-0871.pdf"
Content-Transfer-Encoding: base64
Content-Disposition: attachment; filename="Quote_Q-0871.pdf"

""" + b64 + """
--==HJ_Q0871_boundary==--
""", "2024-02-27 16:48")

    # 4. Latin-1 charset, 8bit body
    latin = """\
Return-Path: <mathilde.ferrand@editions-heron.example>
From: Mathilde Ferrand <mathilde.ferrand@editions-heron.example>
To: Rosalind Achterberg <ros@lanternbookshop.example>
Subject: =?iso-8859-1?q?Commande_n=B0_EH-2024-0311_=2D_Le_H=E9ron_qui_lisait?=
Date: Thu, 29 Feb 2024 10:31:15 +0100
Message-ID: <EH-2024-0311.1031@editions-heron.example>
MIME-Version: 1.0
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: 8bit

Chère Rosalind,

Merci pour votre commande. Nous confirmons l'envoi de 24 exemplaires de
« Le Héron qui lisait » de Camille Aubert, au prix public de 14,90 ¤ avec
une remise libraire de 35 %, soit 232,44 ¤ plus 18,00 ¤ de port : total
250,44 ¤.

La livraison est prévue le lundi 11 mars à Bristol. Camille Aubert sera
ravie de venir lire à la librairie pendant l'été, peut-être en juillet.

Bien cordialement,
Mathilde Ferrand
Service export, Éditions du Héron, Lyon
"""
    # iso-8859-1 has no euro sign; write "EUR" instead of the currency sign
    latin = latin.replace(" ¤", " EUR")
    write_text("Mail/Inbox/2024-02-29 Editions du Heron - commande.eml", latin, "2024-02-29 09:31",
               encoding="iso-8859-1")

    # 5-7. reply thread with the accountant
    m5 = "<20240304.2105.ros@lanternbookshop.example>"
    m6 = "<PL-5512-0305@pughlowe.example>"
    m7 = "<20240305.1812.ros@lanternbookshop.example>"
    write_text("Mail/Sent/2024-03-04 Cafe or childrens corner.eml", f"""\
From: {ROS}
To: Gareth Pugh <gareth@pughlowe.example>
Subject: Cafe or children's corner?
Date: Mon, 04 Mar 2024 21:05:30 +0000
Message-ID: {m5}
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

Hi Gareth,

Stock-take done today (shop closed), so I finally have numbers. Before we
meet tomorrow at 2pm: I need to decide what to do with the back room.

Option A is a small cafe counter - Dev reckons £16,400 with plumbing and an
extraction hood. Option B is the children's corner at about £12,400, less
if I trim the lighting. The grant deadline is 15 March so I have to choose
this week.

Which one would you back?

Ros
""", "2024-03-04 21:05")
    write_text("Mail/Inbox/2024-03-05 Gareth - Re Cafe or childrens corner.eml", f"""\
From: Gareth Pugh <gareth@pughlowe.example>
To: {ROS}
Subject: Re: Cafe or children's corner?
Date: Tue, 05 Mar 2024 16:20:11 +0000
Message-ID: {m6}
In-Reply-To: {m5}
References: {m5}
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

Ros,

Following up on this afternoon. My advice is the children's corner:

- the cafe costs roughly £4,000 more, and you would have to register as a
  food business with the council at least 28 days before opening;
- a coffee machine lease is another £95 a month for three years;
- the children's corner fits the WEIRF criteria and keeps you under their
  £7,500 cap if you trim the budget.

Separately, your VAT quarter ends on 31 March and the return is due by
7 May 2024. Keep the Hartcliffe invoice - the VAT on it is reclaimable.

Regards,
Gareth Pugh
Pugh & Lowe Accountants, 9 Whiteladies Road, Bristol

> Which one would you back?
""", "2024-03-05 16:20")
    write_text("Mail/Sent/2024-03-05 Re Re Cafe or childrens corner.eml", f"""\
From: {ROS}
To: Gareth Pugh <gareth@pughlowe.example>
Subject: Re: Re: Cafe or children's corner?
Date: Tue, 05 Mar 2024 18:12:40 +0000
Message-ID: {m7}
In-Reply-To: {m6}
References: {m5} {m6}
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

Thanks Gareth - decision made: we are going with the children's corner, not
the cafe. I'll cut the grant request to £7,200 and Dev will redraw the
layout this weekend. Owen at Hartcliffe keeps the Sunday 17 March slot.

Ros

> My advice is the children's corner
""", "2024-03-05 18:12")

    # 8. grant offer
    write_text("Mail/Inbox/2024-04-10 WEIRF grant offer.eml", """\
From: WEIRF Grants Team <grants@weirf.example>
To: Rosalind Achterberg <ros@lanternbookshop.example>
Subject: Your WEIRF application WEIRF-24-0193 - grant offer
Date: Wed, 10 Apr 2024 11:02:57 +0100
Message-ID: <offer-WEIRF-24-0193@weirf.example>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

Dear Rosalind Achterberg,

We are pleased to offer The Lantern Bookshop a grant of £7,200 towards
your Children's Corner project (application reference WEIRF-24-0193).

Please sign and return the acceptance form by Friday 26 April 2024. We will
pay 70% of the grant (£5,040) within ten working days of receiving it, and
the remaining 30% (£2,160) after your end-of-project report, due by
31 October 2024.

The panel particularly liked the free Saturday story time.

Yours sincerely,
Helen Okonjo
Grants Officer, West of England Independent Retail Fund
""", "2024-04-10 11:03")


# ---------------------------------------------------------------- calendar
def _fold(line):
    out, b = [], line.encode("utf-8")
    while len(b) > 75:
        cut = 75
        while (b[cut] & 0xC0) == 0x80:  # do not split a UTF-8 sequence
            cut -= 1
        out.append(b[:cut].decode("utf-8"))
        b = b" " + b[cut:]
    out.append(b.decode("utf-8"))
    return "\r\n".join(out)


def make_ics():
    rel = "Calendar/Ros.ics"
    stamp_utc = "20240101T090000Z"
    events = [
        dict(UID="choir-weekly-2024@lanternbookshop.example",
             SUMMARY="Choir practice - Redland Community Choir",
             **{"DTSTART;TZID=Europe/London": "20240109T193000",
                "DTEND;TZID=Europe/London": "20240109T213000",
                "RRULE": "FREQ=WEEKLY;BYDAY=TU;UNTIL=20240430T235959Z",
                "EXDATE;TZID=Europe/London": "20240213T193000,20240402T193000"},
             LOCATION="St Agnes Hall\\, Thornleigh Road\\, Redland\\, Bristol",
             DESCRIPTION="Weekly rehearsal\\, every Tuesday 7:30-9:30pm. Spring term: Fauré Requiem and "
                         "Rutter. No rehearsal in half-term (13 Feb) or Easter week (2 Apr). Bring a pencil."),
        dict(UID="reading-group-2024@lanternbookshop.example",
             SUMMARY="Lantern reading group",
             **{"DTSTART;TZID=Europe/London": "20240131T190000",
                "DTEND;TZID=Europe/London": "20240131T203000",
                "RRULE": "FREQ=MONTHLY;BYDAY=-1WE;COUNT=6"},
             LOCATION="The Lantern Bookshop\\, back room",
             DESCRIPTION="Last Wednesday of the month. Wine and crisps\\, £3 donation."),
        dict(UID="bank-meeting-20240220@lanternbookshop.example",
             SUMMARY="Meeting with Nadia Rahman\\, Avon Community Bank - loan",
             **{"DTSTART;TZID=Europe/London": "20240220T100000",
                "DTEND;TZID=Europe/London": "20240220T110000"},
             LOCATION="Avon Community Bank\\, 41 Gloucester Road\\, Bristol",
             DESCRIPTION="Bring business plan and the children's corner slides."),
        dict(UID="accountant-20240305@lanternbookshop.example",
             SUMMARY="Gareth Pugh - cafe vs children's corner\\, VAT",
             **{"DTSTART;TZID=Europe/London": "20240305T140000",
                "DTEND;TZID=Europe/London": "20240305T150000"},
             LOCATION="Pugh & Lowe Accountants\\, 9 Whiteladies Road\\, Bristol"),
        dict(UID="stocktake-20240304@lanternbookshop.example",
             SUMMARY="Stock-take - shop closed",
             **{"DTSTART;VALUE=DATE": "20240304", "DTEND;VALUE=DATE": "20240305"},
             DESCRIPTION="Annual stock-take. Sign on door from Saturday.",
             TRANSP="TRANSPARENT"),
        dict(UID="felix-birthday-2024@lanternbookshop.example",
             SUMMARY="Felix's 13th birthday",
             **{"DTSTART;VALUE=DATE": "20240321", "DTEND;VALUE=DATE": "20240322"},
             TRANSP="TRANSPARENT"),
        dict(UID="weirf-deadline-20240315@lanternbookshop.example",
             SUMMARY="WEIRF grant deadline (17:00)",
             **{"DTSTART;TZID=Europe/London": "20240315T160000",
                "DTEND;TZID=Europe/London": "20240315T170000"},
             DESCRIPTION="Submit the final application on the portal before 5pm."),
        dict(UID="shelving-install-20240317@lanternbookshop.example",
             SUMMARY="Shelving installation - Hartcliffe Joinery",
             **{"DTSTART;TZID=Europe/London": "20240317T080000",
                "DTEND;TZID=Europe/London": "20240317T150000"},
             LOCATION="The Lantern Bookshop\\, 27 Cotham Parade\\, Bristol BS6 5QT",
             DESCRIPTION="Owen Tally and one fitter. Clear the back room on Saturday night."),
        dict(UID="corner-opening-20240406@lanternbookshop.example",
             SUMMARY="Children's Corner opening - storyteller Bryony Hale",
             **{"DTSTART;TZID=Europe/London": "20240406T110000",
                "DTEND;TZID=Europe/London": "20240406T123000"},
             LOCATION="The Lantern Bookshop",
             DESCRIPTION="Story time at 11:00\\, then juice and cake. Aoife working."),
        dict(UID="small-press-fair-20240413@lanternbookshop.example",
             SUMMARY="Bristol Small Press Fair - stall 22",
             **{"DTSTART;TZID=Europe/London": "20240413T100000",
                "DTEND;TZID=Europe/London": "20240413T170000"},
             LOCATION="Harbourside Assembly Rooms\\, Bristol",
             DESCRIPTION="Set-up from 8:30. Aoife from 1pm."),
        dict(UID="choir-concert-20240427@lanternbookshop.example",
             SUMMARY="Redland Community Choir spring concert",
             **{"DTSTART;TZID=Europe/London": "20240427T190000",
                "DTEND;TZID=Europe/London": "20240427T211500"},
             LOCATION="St Agnes Church\\, Redland",
             DESCRIPTION="Fauré Requiem. Black clothes. Call time 6pm."),
    ]
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Dentate samples//Ros calendar//EN",
             "CALSCALE:GREGORIAN", "X-WR-CALNAME:Ros", "X-WR-TIMEZONE:Europe/London",
             "BEGIN:VTIMEZONE", "TZID:Europe/London",
             "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0000", "TZOFFSETTO:+0100", "TZNAME:BST",
             "DTSTART:19810329T010000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
             "BEGIN:STANDARD", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0000", "TZNAME:GMT",
             "DTSTART:19961027T020000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
             "END:VTIMEZONE"]
    for ev in events:
        lines.append("BEGIN:VEVENT")
        lines.append("UID:" + ev.pop("UID"))
        lines.append("DTSTAMP:" + stamp_utc)
        for k, v in ev.items():
            lines.append(_fold("%s:%s" % (k, v)))
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    write_bytes(rel, ("\r\n".join(lines) + "\r\n").encode("utf-8"), "2024-03-06 08:30")


# ---------------------------------------------------------------- sqlite app database
def make_sqlite():
    rel = "Documents/Apps/special_orders.sqlite"
    path = p(rel)
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.executescript("""
    CREATE TABLE customers (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL, phone TEXT, email TEXT, joined TEXT);
    CREATE TABLE orders (
        id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), isbn TEXT, title TEXT,
        ordered_on TEXT, status TEXT, deposit REAL, collected_on TEXT);
    """)
    customers = [
        (1, "Leonard Okoye", "07700 900412", "l.okoye@post.example", "2021-05-14"),
        (2, "Maud Pennington", "07700 900877", None, "2019-11-02"),
        (3, "Sunita Varma", "07700 900153", "sunita.v@post.example", "2023-08-30"),
        (4, "Callum Rees", None, "callum.rees@post.example", "2024-01-20"),
        (5, "Beatrix Hollis", "07700 900690", None, "2022-03-03"),
        (6, "St Bede's Primary School", "0117 496 0321", "office@stbedes.example", "2023-09-12"),
    ]
    orders = [
        (1, 2, BOOK_ISBN["The Lighthouse Ledger"], "The Lighthouse Ledger", "2024-02-02", "collected", 0.0, "2024-02-07"),
        (2, 6, BOOK_ISBN["Mabel and the Midnight Bus"], "Mabel and the Midnight Bus (class set of 30)", "2024-02-05", "collected", 0.0, "2024-02-16"),
        (3, 3, BOOK_ISBN["Moth Weather"], "Moth Weather", "2024-02-19", "collected", 5.0, "2024-02-24"),
        (4, 4, BOOK_ISBN["Numbers for Small Shops"], "Numbers for Small Shops", "2024-02-26", "cancelled", 0.0, None),
        (5, 1, BOOK_ISBN["A Field Guide to British Lichens"], "A Field Guide to British Lichens", "2024-03-12", "collected", 5.0, "2024-03-19"),
        (6, 5, BOOK_ISBN["How Bees Vote"], "How Bees Vote", "2024-03-13", "collected", 5.0, "2024-03-15"),
        (7, 3, BOOK_ISBN["Le Héron qui lisait"], "Le Héron qui lisait", "2024-03-20", "collected", 0.0, "2024-03-21"),
        (8, 2, BOOK_ISBN["The Bridge Keeper's Year"], "The Bridge Keeper's Year", "2024-03-25", "ordered", 5.0, None),
        (9, 1, BOOK_ISBN["Salt Roads of Somerset"], "Salt Roads of Somerset (signed copy)", "2024-03-28", "arrived", 10.0, None),
    ]
    con.executemany("INSERT INTO customers VALUES (?,?,?,?,?)", customers)
    con.executemany("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?)", orders)
    con.commit()
    con.close()
    stamp(rel, "2024-03-28 15:40")


# ---------------------------------------------------------------- notes and plain text
def make_notes():
    write_text("Notes/choir.md", """\
# Choir

Redland Community Choir - rehearsals every Tuesday evening, 7:30 to 9:30pm,
at St Agnes Hall (Thornleigh Road). I sing alto, second row, next to Judith.

- Conductor: Hugh Barraclough
- Spring term subs: £42, paid on 9 January
- No rehearsal on 13 February (half-term) or 2 April (Easter week)
- Spring concert: **Saturday 27 April 2024, 7pm, St Agnes Church** - Fauré Requiem
  plus two Rutter anthems. Black clothes, call time 6pm.

## Things Hugh keeps telling the altos

1. Breathe before "Pie Jesu", not in the middle of the phrase.
2. Bar 41 of the Offertoire: we come in on the off-beat.
3. Practise with the alto line recording (Music/Choir) at least twice a week.

Tickets: £12, children free. Dev and Felix are coming; Dev's mum maybe.
""", "2024-03-12 22:15")

    write_text("Notes/childrens-corner.md", """\
# Children's corner - working notes

## Options (Feb 2024)

| option | cost | pros | cons |
|---|---|---|---|
| cafe counter | ~£16,400 | margin on coffee | plumbing, extraction, food registration |
| children's corner | ~£12,400 | fits WEIRF, families asked for it | less obvious income |

## Decision

5 March 2024, after seeing Gareth: **children's corner**. Cafe parked for at
least two years.

## Layout (Dev's sketch, 9 March)

- four oak bays along the north wall, lowest shelf 30 cm off the floor
- two browser bins under the window for picture books
- reading bench against the radiator wall (radiator bracket needs moving)
- rug: 2 m x 1.4 m, washable - ordered from Ferngrove Rugs, £189

## Story time

Every Saturday at 11:00, free, 30 minutes. First one on 6 April with
Bryony Hale. After that Aoife and I take turns.
""", "2024-03-09 21:30")

    write_text("Notes/bank-meeting-2024-02-20.md", """\
# Avon Community Bank - 20 Feb 2024

With Nadia Rahman (small business team), 10:00, Gloucester Road branch.

- Loan agreed in principle: **£6,000 over 24 months at 9.4% APR**
- Monthly repayment £275.21 from 28 March 2024; total interest about £605
- Drawdown 1 March if I sign the agreement by 26 February
- She wants the WEIRF outcome copied to her when I hear (decisions by 12 April)
- Overdraft limit stays at £2,500

Follow-up: send her the final business plan PDF (done 21 Feb).
""", "2024-02-20 12:05")

    write_text("Notes/allotment.md", """\
# Allotment - plot 14B, Ashley Vale Allotments

## 2024

- 2 March: dug over the bean bed, two barrows of manure from the stables.
- 16 March: onion sets (Sturon) - two rows.
- 30 March: planted first early potatoes, variety Charlotte, 3 rows of 12,
  chitted since mid-February on the spare-room windowsill.
- Broad beans (Aquadulce, sown in November) survived the frost.

Plot rent £38 a year, due 1 April. Water troughs back on from 1 April.
""", "2024-03-30 18:45")

    write_text("Desktop/todo.txt", """\
TO DO - week of 8 April 2024

[x] Children's corner opening, Sat 6 April - thank Bryony (card + book token £20)
[ ] Pay Hartcliffe balance, INV-2291, £3,046.80 - due 21 April
[ ] Small Press Fair Sat 13 April: float £80 in coins, card reader charged, table cloth
[ ] Order Children's Book Week display pack (IBN) - missed it? check
[ ] Send WEIRF outcome to Nadia at the bank
[ ] VAT return Q1 - Gareth needs receipts by 19 April
[ ] Choir: learn bar 41, concert 27 April
[ ] Ring Maud P. - The Bridge Keeper's Year still on order
""", "2024-04-08 08:20")

    write_text("Documents/Personal/Felix birthday plan.txt", """\
Felix - 13th birthday, Thursday 21 March 2024

Party on Saturday 23 March, 2pm-4pm, Jump Zone trampoline park, Avonmouth.
8 friends + Felix = 9 jumpers at £14.50 each = £130.50, pizza included.
Dev collects the cake (chocolate, "13" candles) from Wiltshire's Bakery on
Friday after work.

Present: the road bike from Bike Hub Cotham, £329 - Dev and I split it.
Grandma Anneke (Utrecht) is sending a cheque for €50.
""", "2024-03-10 20:40")


def make_code():
    write_text("Code/till-sync/README.md", """\
# till-sync

Nightly job that uploads the day's sales lines from the PayFlow till export to
Severn Books Distribution so that their re-order suggestions stay current.

- runs at 23:15 every night from cron on the back-office mini PC
- config in `config.json` (shop id LANT-0042)
- logs in `logs/sync-YYYY-MM.log`
- `backup.sh` copies the till database to the NAS at 23:45

Written by Ros in January 2024, fixed after the 9 March 413 error.
""", "2024-03-10 10:30")

    write_text("Code/till-sync/config.json", json.dumps({
        "shop_id": "LANT-0042",
        "shop_name": "The Lantern Bookshop",
        "endpoint": "https://api.severnbooks.example/v2/sales",
        "sync_time": "23:15",
        "batch_size": 200,
        "max_retries": 3,
        "till_export_dir": "/srv/payflow/export",
        "timezone": "Europe/London",
        "notify_email": "ros@lanternbookshop.example",
    }, indent=2) + "\n", "2024-03-10 10:05")

    write_text("Code/till-sync/sync_sales.py", '''\
#!/usr/bin/env python3
"""Upload the day's sales lines from the PayFlow till export to Severn Books.

Run nightly from cron (23:15). See README.md.
"""
import csv
import json
import sys
import time
import urllib.request
from pathlib import Path

CONFIG = json.loads((Path(__file__).parent / "config.json").read_text())

# Severn's endpoint rejects batches over 250 lines with HTTP 413 (found out the
# hard way on Saturday 9 March 2024, Mother's Day weekend), so we chunk at 200.
BATCH_SIZE = CONFIG.get("batch_size", 200)


def read_sales(day):
    path = Path(CONFIG["till_export_dir"]) / f"sales-{day}.csv"
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f) if row["type"] == "sale"]


def post(lines):
    body = json.dumps({"shop_id": CONFIG["shop_id"], "lines": lines}).encode()
    req = urllib.request.Request(CONFIG["endpoint"], data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.status


def main(day):
    lines = read_sales(day)
    if not lines:
        print(f"nothing to upload for {day}")
        return 0
    for start in range(0, len(lines), BATCH_SIZE):
        batch = lines[start:start + BATCH_SIZE]
        for attempt in range(CONFIG["max_retries"]):
            try:
                post(batch)
                break
            except OSError:
                # back off 2, 4, 8 seconds between retries
                time.sleep(2 ** (attempt + 1))
        else:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
''', "2024-03-10 10:20")

    write_text("Code/till-sync/backup.sh", """\
#!/bin/sh
# Nightly backup of the till database to the NAS in the stock room.
# cron: 45 23 * * *  /home/ros/Code/till-sync/backup.sh
# Keeps 14 days of copies; older ones are deleted.
set -eu
SRC=/srv/payflow/till.db
DEST=ros@lantern-nas.local:/volume1/backups/till
STAMP=$(date +%Y-%m-%d)
rsync -a "$SRC" "$DEST/till-$STAMP.db"
ssh ros@lantern-nas.local "find /volume1/backups/till -name 'till-*.db' -mtime +14 -delete"
echo "backup $STAMP ok"
""", "2024-01-21 16:00")
    os.chmod(p("Code/till-sync/backup.sh"), 0o755)
    stamp("Code/till-sync/backup.sh", "2024-01-21 16:00")

    # log: one block per night, March 2024
    rng = random.Random(11)
    lines = []
    d = dt.date(2024, 3, 1)
    while d <= dt.date(2024, 3, 31):
        ts = "%s 23:15:0%d" % (d.isoformat(), rng.randint(1, 4))
        day_rows = [r for r in TAKINGS if r[0] == d]
        if d.weekday() == 6 or not day_rows or day_rows[0][3] == 0:
            lines.append(f"{ts} INFO  sync {d}: nothing to upload (shop closed)")
        elif d == dt.date(2024, 3, 9):
            lines.append(f"{ts} INFO  sync {d}: 312 sales lines, 1 batch")
            lines.append(f"{d} 23:15:07 ERROR upload failed: HTTP 413 Payload Too Large - batch of 312 lines exceeds limit of 250")
            lines.append(f"{d} 23:15:07 ERROR sync {d} aborted after 3 retries; lines kept for tomorrow")
        elif d == dt.date(2024, 3, 11):  # first run after the batch_size fix of Sunday 10 March
            n = int(day_rows[0][4] * rng.uniform(1.6, 2.2))
            lines.append(f"{ts} INFO  sync {d}: {n} sales lines + 312 carried over from 2024-03-09, "
                         f"2 batches (batch_size=200)")
            lines.append(f"{d} 23:15:09 INFO  uploaded {n + 312} lines in 2 batches")
        else:
            n = int(day_rows[0][4] * rng.uniform(1.6, 2.2))
            nb = (n + 199) // 200
            lines.append(f"{ts} INFO  sync {d}: {n} sales lines, {nb} batch{'es' if nb > 1 else ''}")
            if d == dt.date(2024, 3, 21):
                lines.append(f"{d} 23:15:05 WARN  slow response from api.severnbooks.example (4.8 s)")
            lines.append(f"{d} 23:15:0{rng.randint(5, 8)} INFO  uploaded {n} lines")
        d += dt.timedelta(days=1)
    write_text("Code/till-sync/logs/sync-2024-03.log", "\n".join(lines) + "\n", "2024-03-31 23:15")


def make_reading_group_jsonl():
    recs = [
        {"date": "2024-01-31", "title": "Moth Weather", "author": "Selma Quist", "attendees": 8,
         "verdict": "mixed - the sea poems won people over"},
        {"date": "2024-02-28", "title": "The Quiet Canal", "author": "Dominic Eze", "attendees": 10,
         "verdict": "unanimous thumbs up; Maud brought lemon cake"},
        {"date": "2024-03-27", "title": "The Lighthouse Ledger", "author": "Corin Vale", "attendees": 11,
         "verdict": "7 loved it, 4 found the ending rushed"},
        {"date": "2024-04-24", "title": "The Bridge Keeper's Year", "author": "Alun Pryce", "attendees": None,
         "verdict": None, "note": "first meeting in the new children's corner room - move the bench"},
    ]
    write_text("Documents/Shop/reading_group.jsonl",
               "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), "2024-03-28 09:10")


# ---------------------------------------------------------------- notebook + npy
def make_notebook_and_npy():
    import numpy as np
    totals = np.array([r[3] for r in TAKINGS], dtype=np.float64)
    buf = io.BytesIO()
    np.save(buf, totals)
    write_bytes("Code/notebooks/daily_totals_feb_mar_2024.npy", buf.getvalue(), "2024-03-31 10:00")

    open_days = [r for r in TAKINGS if r[3] > 0]
    feb = round(sum(r[3] for r in open_days if r[0].month == 2), 2)
    mar = round(sum(r[3] for r in open_days if r[0].month == 3), 2)
    sats = [r[3] for r in open_days if r[0].weekday() == 5]
    wk = [r[3] for r in open_days if r[0].weekday() != 5]
    best = max(open_days, key=lambda r: r[3])
    before = [r[3] for r in open_days if r[0] < dt.date(2024, 3, 18)][-10:]
    after = [r[3] for r in open_days if r[0] >= dt.date(2024, 3, 18)]
    out1 = f"February: £{feb:,.2f}\nMarch:    £{mar:,.2f}\nBest day: {best[0]} £{best[3]:,.2f}\n"
    out2 = (f"Average Saturday: £{sum(sats)/len(sats):,.2f}\n"
            f"Average weekday:  £{sum(wk)/len(wk):,.2f}\n")
    out3 = (f"Last 10 trading days before new shelving: £{sum(before)/len(before):,.2f}/day\n"
            f"Since 18 March (new shelving): £{sum(after)/len(after):,.2f}/day over {len(after)} days\n")

    def code(src, out, n):
        return {"cell_type": "code", "execution_count": n, "id": "c%d" % n, "metadata": {},
                "source": src.splitlines(True),
                "outputs": [{"name": "stdout", "output_type": "stream", "text": out.splitlines(True)}]}

    nb = {
        "cells": [
            {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": [
                "# Takings, February-March 2024\n", "\n",
                "Quick look at whether the new shelving (installed Sunday 17 March) changed daily takings.\n",
                "Data: `daily_totals_feb_mar_2024.npy`, exported from *Takings Feb-Mar 2024.xlsx*.\n"]},
            code("import numpy as np\nimport datetime as dt\n"
                 "totals = np.load('daily_totals_feb_mar_2024.npy')\n"
                 "# trading days only: Monday-Saturday, 1 Feb - 30 Mar 2024\n"
                 "days = [d for d in (dt.date(2024, 2, 1) + dt.timedelta(i) for i in range(59)) if d.weekday() != 6]\n"
                 "assert len(days) == len(totals)\n", "", 1),
            code("feb = totals[[d.month == 2 for d in days]].sum()\nmar = totals[[d.month == 3 for d in days]].sum()\n"
                 "i = totals.argmax()\nprint(f'February: £{feb:,.2f}')\nprint(f'March:    £{mar:,.2f}')\n"
                 "print(f'Best day: {days[i]} £{totals[i]:,.2f}')\n", out1, 2),
            code("sat = np.array([d.weekday() == 5 for d in days])\nopen_ = totals > 0\n"
                 "print(f'Average Saturday: £{totals[sat & open_].mean():,.2f}')\n"
                 "print(f'Average weekday:  £{totals[~sat & open_].mean():,.2f}')\n", out2, 3),
            code("cut = days.index(dt.date(2024, 3, 18))\nbefore = totals[:cut][open_[:cut]][-10:]\n"
                 "after = totals[cut:]\n"
                 "print(f'Last 10 trading days before new shelving: £{before.mean():,.2f}/day')\n"
                 "print(f'Since 18 March (new shelving): £{after.mean():,.2f}/day over {len(after)} days')\n", out3, 4),
            {"cell_type": "markdown", "id": "m2", "metadata": {}, "source": [
                "Too early to call - Easter is at the end of March. Look again after the Children's Corner opens on 6 April.\n"]},
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python", "version": "3.11.7"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    write_text("Code/notebooks/takings_analysis.ipynb", json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
               "2024-03-31 10:25")


# ---------------------------------------------------------------- html + zip
def make_html():
    write_text("Downloads/Bristol Small Press Fair 2024 - Exhibitor information.html", """\
<!DOCTYPE html>
<html lang="en">
<!-- saved from url=(0054)https://smallpressfair.example/2024/exhibitors/info -->
<head>
<meta charset="utf-8">
<title>Exhibitor information - Bristol Small Press Fair 2024</title>
<link rel="stylesheet" href="./fair_files/site.css">
</head>
<body>
<nav><a href="/">Home</a> | <a href="/2024/programme">Programme</a> | <b>Exhibitors</b></nav>
<main>
<h1>Bristol Small Press Fair 2024: exhibitor information</h1>
<p>The fair takes place on <strong>Saturday 13 April 2024, 10:00&ndash;17:00</strong> at the
Harbourside Assembly Rooms, Bristol. Around 60 presses, zine makers and independent shops will take part.</p>
<h2>Your stall</h2>
<ul>
<li>Set-up from 8:30; vehicles must leave the loading bay by 9:30.</li>
<li>Each stall is a 1.8 m trestle table with two chairs. Stall fee: &pound;45 (shops), &pound;25 (individual makers).</li>
<li>Power sockets are available only at wall stalls (numbers 1&ndash;12) &mdash; please bring battery card readers.</li>
<li>Wi-Fi: network SPF2024, password on the day.</li>
</ul>
<h2>Stall allocation (shops)</h2>
<table>
<tr><th>Stall</th><th>Exhibitor</th></tr>
<tr><td>21</td><td>Paper Kite Zines</td></tr>
<tr><td>22</td><td>The Lantern Bookshop</td></tr>
<tr><td>23</td><td>Kingsweston Press</td></tr>
</table>
<p>Talks run in the Long Room every hour; the 14:00 slot is a panel on &ldquo;Selling poetry in a bookshop&rdquo;.</p>
</main>
<footer>&copy; 2024 Bristol Small Press Fair CIC</footer>
</body>
</html>
""", "2024-03-20 12:44")


def make_zip():
    rel = "Documents/Archive/lantern-website-backup-2024-02-01.zip"
    members = [
        ("site/index.html", "<!DOCTYPE html><html><head><title>The Lantern Bookshop</title></head><body>"
         "<h1>The Lantern Bookshop</h1><p>Independent bookshop at 27 Cotham Parade, Bristol BS6 5QT.</p>"
         "<p>Open Monday to Saturday 9:30-17:30. Closed Sundays.</p></body></html>\n"),
        ("site/events.html", "<!DOCTYPE html><html><head><title>Events</title></head><body><h1>Events</h1>"
         "<ul><li>Reading group: last Wednesday of every month, 7pm. February book: The Quiet Canal by Dominic Eze.</li>"
         "<li>Author evening: Imogen Trask on Salt Roads of Somerset, Thursday 28 March 2024, 7pm, tickets £5.</li>"
         "</ul></body></html>\n"),
        ("site/robots.txt", "User-agent: *\nAllow: /\n"),
        ("README.txt", "Backup of lanternbookshop.example taken 1 February 2024 before moving hosts "
         "from Hostlyn to Brightpage. Domain renewal due 14 September 2024.\n"),
    ]
    with zipfile.ZipFile(p(rel), "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members:
            zi = zipfile.ZipInfo(name, date_time=(2024, 2, 1, 9, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            z.writestr(zi, text.encode("utf-8"))
    stamp(rel, "2024-02-01 09:02")


# ---------------------------------------------------------------- images
def _rat(x):
    d = int(abs(x))
    m = int((abs(x) - d) * 60)
    s = round(((abs(x) - d) * 60 - m) * 60 * 100)
    return ((d, 1), (m, 1), (s, 100))


def _exif(when, lat, lon, make, model):
    import piexif
    t = when.replace("-", ":")
    zeroth = {piexif.ImageIFD.Make: make, piexif.ImageIFD.Model: model, piexif.ImageIFD.DateTime: t,
              piexif.ImageIFD.Software: "sample generator"}
    exif = {piexif.ExifIFD.DateTimeOriginal: t, piexif.ExifIFD.DateTimeDigitized: t,
            piexif.ExifIFD.OffsetTimeOriginal: "+00:00"}
    gps = {piexif.GPSIFD.GPSLatitudeRef: "N" if lat >= 0 else "S", piexif.GPSIFD.GPSLatitude: _rat(lat),
           piexif.GPSIFD.GPSLongitudeRef: "E" if lon >= 0 else "W", piexif.GPSIFD.GPSLongitude: _rat(lon)}
    return piexif.dump({"0th": zeroth, "Exif": exif, "GPS": gps})


def _photo_shopfront(draw, W, H):
    draw.rectangle([0, 0, W, H], fill=(186, 196, 205))          # sky/wall
    draw.rectangle([40, 60, W - 40, H], fill=(34, 61, 52))      # painted shop front
    draw.rectangle([60, 75, W - 60, 125], fill=(20, 40, 33))
    draw.text((W // 2, 100), "THE LANTERN BOOKSHOP", fill=(232, 205, 120), font=font(30, bold=True), anchor="mm")
    draw.rectangle([70, 150, 400, 430], fill=(238, 226, 196))   # window
    for i, col in enumerate([(170, 40, 40), (40, 90, 160), (200, 150, 40), (80, 130, 70), (120, 60, 120)]):
        x = 95 + i * 60
        draw.rectangle([x, 330, x + 45, 420], fill=col)
    draw.text((235, 200), "BLIND DATE", fill=(150, 30, 60), font=font(26, bold=True), anchor="mm")
    draw.text((235, 235), "WITH A BOOK", fill=(150, 30, 60), font=font(26, bold=True), anchor="mm")
    draw.text((235, 275), "wrapped books £9", fill=(60, 40, 40), font=font(18), anchor="mm")
    draw.rectangle([450, 150, 570, 470], fill=(70, 45, 30))     # door
    draw.text((510, 190), "27", fill=(232, 205, 120), font=font(22, bold=True), anchor="mm")


def _photo_shelves(draw, W, H):
    draw.rectangle([0, 0, W, H], fill=(236, 232, 222))
    draw.rectangle([0, 400, W, H], fill=(150, 110, 75))
    for b in range(4):
        x0 = 40 + b * 140
        draw.rectangle([x0, 60, x0 + 130, 400], fill=(196, 154, 104), outline=(120, 85, 50), width=3)
        for s in range(4):
            y = 110 + s * 75
            draw.rectangle([x0 + 4, y, x0 + 126, y + 8], fill=(160, 120, 75))
            rng = random.Random(b * 10 + s)
            x = x0 + 8
            while x < x0 + 118 and s < 3:
                w = rng.randint(6, 14)
                draw.rectangle([x, y - rng.randint(30, 48), x + w, y], fill=tuple(rng.randint(40, 220) for _ in range(3)))
                x += w + 1
    draw.text((W // 2, 30), "back room - new oak shelving, 17 March", fill=(80, 60, 40), font=font(18), anchor="mm")


def _photo_allotment(draw, W, H):
    draw.rectangle([0, 0, W, 180], fill=(170, 200, 230))
    draw.rectangle([0, 180, W, H], fill=(95, 70, 45))
    for r in range(3):
        y = 240 + r * 80
        draw.line([(30, y), (W - 30, y)], fill=(70, 50, 30), width=10)
        for k in range(12):
            x = 50 + k * 46
            draw.ellipse([x, y - 22, x + 16, y - 8], fill=(210, 185, 140))
    draw.rectangle([520, 120, 610, 230], fill=(120, 110, 100))
    draw.text((565, 150), "14B", fill=(255, 255, 255), font=font(26, bold=True), anchor="mm")
    draw.text((30, 30), "Charlotte first earlies", fill=(40, 40, 60), font=font(18))


def make_images():
    from PIL import Image, ImageDraw
    photos = [
        ("Pictures/2024/IMG_20240217_101522.jpg", "2024-02-17 10:15:22", 51.466812, -2.593524,
         "Google", "Pixel 7a", _photo_shopfront),
        ("Pictures/2024/IMG_20240317_143812.jpg", "2024-03-17 14:38:12", 51.466790, -2.593490,
         "Google", "Pixel 7a", _photo_shelves),
        ("Pictures/2024/IMG_20240330_112605.jpg", "2024-03-30 11:26:05", 51.471230, -2.578840,
         "Apple", "iPhone 13", _photo_allotment),
    ]
    for rel, when, lat, lon, make, model, fn in photos:
        img = Image.new("RGB", (640, 480))
        fn(ImageDraw.Draw(img), 640, 480)
        img.save(p(rel), "JPEG", quality=82, exif=_exif(when, lat, lon, make, model))
        stamp(rel, when[:16])

    # screenshot of the grant portal
    rel = "Pictures/Screenshots/Screenshot 2024-03-15 at 16.42.10.png"
    img = Image.new("RGB", (900, 560), (245, 246, 248))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, 900, 56], fill=(26, 77, 128))
    d.text((24, 16), "WEIRF Grants Portal", fill=(255, 255, 255), font=font(22, bold=True))
    d.text((700, 20), "Signed in: R. Achterberg", fill=(220, 230, 240), font=font(13))
    d.rectangle([60, 100, 840, 480], fill=(255, 255, 255), outline=(200, 205, 210))
    d.text((90, 125), "Application submitted", fill=(20, 120, 60), font=font(28, bold=True))
    rows = [("Reference", "WEIRF-24-0193"), ("Applicant", "The Lantern Bookshop"),
            ("Project", "Children's Corner"), ("Amount requested", "£7,200"),
            ("Total project cost", "£10,950"), ("Submitted", "15 March 2024, 16:41"),
            ("Decision expected", "by 12 April 2024")]
    for i, (k, v) in enumerate(rows):
        d.text((90, 190 + i * 38), k, fill=(90, 90, 100), font=font(18))
        d.text((360, 190 + i * 38), v, fill=(20, 20, 30), font=font(18, bold=True))
    img.save(p(rel), "PNG", optimize=True)
    stamp(rel, "2024-03-15 16:42")

    # animated gif logo
    rel = "Pictures/Shop/lantern-logo-animated.gif"
    frames = []
    for k, glow in enumerate([200, 235, 255, 225]):
        im = Image.new("P", (120, 120))
        im.putpalette([0, 0, 0] * 256)
        im = Image.new("RGB", (120, 120), (34, 61, 52))
        dd = ImageDraw.Draw(im)
        dd.rectangle([45, 20, 75, 28], fill=(30, 30, 30))
        dd.rectangle([40, 28, 80, 85], outline=(20, 20, 20), width=3, fill=(glow, int(glow * 0.75), 60))
        dd.ellipse([52, 40 - k, 68, 70], fill=(255, 240, 180))
        dd.text((60, 102), "LANTERN", fill=(232, 205, 120), font=font(14, bold=True), anchor="mm")
        frames.append(im.convert("P", palette=Image.ADAPTIVE, colors=32))
    frames[0].save(p(rel), save_all=True, append_images=frames[1:], duration=250, loop=0)
    stamp(rel, "2024-02-02 15:30")


# ---------------------------------------------------------------- audio/video
def _tone_samples(notes, rate, amp=0.3):
    out = []
    for freq, dur in notes:
        n = int(rate * dur)
        for i in range(n):
            env = min(1.0, i / (0.02 * rate), (n - i) / (0.05 * rate))
            v = amp * env * math.sin(2 * math.pi * freq * i / rate) if freq else 0.0
            out.append(int(max(-1, min(1, v)) * 32767))
    return out


def _write_wav(path, samples, rate):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(struct.pack("<%dh" % len(samples), *samples))


def _ffmpeg(args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + args, check=True)


SHELF_MEMO = [
    "Shelf measurements for the back room.",
    "The alcove is ninety two centimetres wide and thirty one centimetres deep.",
    "Three shelves, thirty centimetres apart, in oak to match the counter.",
]
TILL_SLIDES = [
    ("Till sync: every night", ["Sales upload to Severn at 23.15", "Till backup to the NAS at 23.45",
                                "Logs in logs/sync-YYYY-MM.log"]),
    ("If the sync fails", ["Check the router first", "Run backup.sh by hand", "Ring Severn if it fails twice"]),
]
TILL_TALK = [
    "This is how the till sync works.",
    "Every night at quarter past eleven the day's sales go to Severn Books.",
    "At quarter to twelve the till database is copied to the NAS in the stock room.",
    "If it fails, check the router first, then run the backup script by hand.",
]


def _speech(sentences, tmp, name, voice="en-gb", speed=160):
    """16 kHz mono samples of espeak-ng speaking the sentences, with short pauses."""
    out = []
    for i, sentence in enumerate(sentences):
        wav = os.path.join(tmp, "%s-%d.wav" % (name, i))
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", wav, sentence],
                       check=True, stdout=subprocess.DEVNULL)
        raw = os.path.join(tmp, "%s-%d.raw" % (name, i))
        _ffmpeg(["-i", wav, "-ac", "1", "-ar", "16000", "-f", "s16le", raw])
        with open(raw, "rb") as f:
            pcm = f.read()
        out.extend(struct.unpack("<%dh" % (len(pcm) // 2), pcm))
        out.extend([0] * 8000)
    return out


def make_speech(tmp):
    """The spoken voice memo and a screen recording with speech (espeak-ng + ffmpeg)."""
    rel = "Voice Memos/2024-03-08 shelf measurements.wav"
    _write_wav(p(rel), [0] * 8000 + _speech(SHELF_MEMO, tmp, "shelf"), 16000)
    stamp(rel, "2024-03-08 17:52")
    # A screen recording: two slides of five seconds and more, the talk over them.
    talk = [0] * 8000 + _speech(TILL_TALK, tmp, "till")
    seconds = max(10, len(talk) // 16000 + 1)
    talk += [0] * (seconds * 16000 - len(talk))
    aud = os.path.join(tmp, "talk.wav")
    _write_wav(aud, talk, 16000)
    half = seconds / 2
    filters = []
    for k, (title, lines) in enumerate(TILL_SLIDES):
        enable = "enable='between(t,%.2f,%.2f)'" % (k * half, (k + 1) * half - 0.01)
        for j, text in enumerate([title] + lines):
            filters.append("drawtext=text='%s':fontcolor=black:fontsize=%d:x=40:y=%d:%s"
                           % (text.replace(":", "\\:"), 40 if j == 0 else 30, 60 + j * 70, enable))
    rel = "Videos/2024-03-20 till sync walkthrough.mp4"
    _ffmpeg(["-f", "lavfi", "-i", "color=c=white:s=960x540:r=10:d=%d" % seconds, "-i", aud,
             "-vf", ",".join(filters), "-map_metadata", "-1", "-c:v", "libx264", "-threads", "1",
             "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "32k", "-fflags", "+bitexact",
             "-flags:v", "+bitexact", "-flags:a", "+bitexact",
             "-metadata", "creation_time=2024-03-20T18:40:00Z",
             "-metadata", "title=Till sync walkthrough", p(rel)])
    stamp(rel, "2024-03-20 18:40")


def make_media():
    from PIL import Image, ImageDraw

    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg or not shutil.which("espeak-ng"):
        print("WARNING: ffmpeg or espeak-ng not found; skipping the recordings", file=sys.stderr)
        return
    tmp = tempfile.mkdtemp(prefix="dentate-samples-")
    try:
        make_speech(tmp)
        # mp3: an alto-line practice track (sine melody)
        melody = [(349.23, 0.5), (392.0, 0.5), (440.0, 1.0), (392.0, 0.5), (349.23, 0.5), (329.63, 1.0),
                  (349.23, 0.75), (0, 0.25), (293.66, 0.5), (329.63, 0.5), (349.23, 1.5)]
        src = os.path.join(tmp, "alto.wav")
        _write_wav(src, _tone_samples(melody, 22050, 0.35), 22050)
        rel = "Music/Choir/Requiem alto line practice.mp3"
        _ffmpeg(["-i", src, "-map_metadata", "-1", "-c:a", "libmp3lame", "-b:a", "64k",
                 "-fflags", "+bitexact", "-flags:a", "+bitexact", "-id3v2_version", "3",
                 "-metadata", "title=Requiem - Offertoire alto line (practice)",
                 "-metadata", "artist=Redland Community Choir", "-metadata", "album=Spring concert 2024",
                 "-metadata", "date=2024", "-metadata", "comment=Hugh's practice track, bar 41 slowed down",
                 p(rel)])
        stamp(rel, "2024-02-27 21:10")

        # mp4: 4-second timelapse of the shelving install, 160x120, with a quiet tone track
        hours = ["08:00", "09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00"]
        for k, h in enumerate(hours):
            im = Image.new("RGB", (160, 120), (236, 232, 222))
            dd = ImageDraw.Draw(im)
            dd.rectangle([0, 96, 160, 120], fill=(150, 110, 75))
            for b in range(min(4, k // 2 + 1)):
                dd.rectangle([8 + b * 37, 20, 8 + b * 37 + 33, 96], fill=(196, 154, 104), outline=(120, 85, 50))
            dd.text((80, 8), "17 Mar " + h, fill=(40, 30, 20), font=font(11, bold=True), anchor="mm")
            im.save(os.path.join(tmp, "f%02d.png" % k))
        aud = os.path.join(tmp, "hum.wav")
        _write_wav(aud, _tone_samples([(220, 4.0)], 16000, 0.05), 16000)
        rel = "Videos/2024-03-17 shelving install timelapse.mp4"
        _ffmpeg(["-framerate", "2", "-i", os.path.join(tmp, "f%02d.png"), "-i", aud,
                 "-map_metadata", "-1", "-c:v", "libx264", "-threads", "1", "-pix_fmt", "yuv420p", "-r", "10",
                 "-c:a", "aac", "-b:a", "32k", "-shortest", "-fflags", "+bitexact",
                 "-flags:v", "+bitexact", "-flags:a", "+bitexact",
                 "-metadata", "creation_time=2024-03-17T15:05:00Z",
                 "-metadata", "title=Shelving install timelapse", p(rel)])
        stamp(rel, "2024-03-17 15:05")
    finally:
        shutil.rmtree(tmp)


# ---------------------------------------------------------------- main
def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    make_business_plan()
    make_invoice()
    make_guidance()
    make_docx_draft()
    make_odt_final()
    make_pptx()
    make_xlsx()
    make_bank_csv()
    make_stock_tsv()
    make_onix_xml()
    make_mail()
    make_ics()
    make_sqlite()
    make_notes()
    make_code()
    make_reading_group_jsonl()
    make_notebook_and_npy()
    make_html()
    make_zip()
    make_images()
    make_media()
    write_mtimes()
    n, size = 0, 0
    for root, _, files in os.walk(OUT):
        for f in files:
            n += 1
            size += os.path.getsize(os.path.join(root, f))
    print("wrote %d files, %.1f KB, to %s" % (n, size / 1024, OUT))


if __name__ == "__main__":
    if "--restore-mtimes" in sys.argv:
        restore_mtimes()
    else:
        main()
