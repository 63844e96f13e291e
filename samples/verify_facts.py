#!/usr/bin/env python3
"""Check every fact in FACTS.md against the generated profile.

Each fact names a file, a locator and an exact phrase; this script extracts the
located unit with an independent reader (pdftotext, python-docx, openpyxl,
python-pptx, the email package, icalendar, sqlite3, piexif, ffprobe, ...) and
asserts the phrase is in it.  Whitespace is collapsed to single spaces and HTML
is reduced to text (tags removed, entities decoded) before matching.

    /tmp/sgen/bin/pip install pypdf icalendar   # besides the generator's packages
    /tmp/sgen/bin/python samples/verify_facts.py            # check
    /tmp/sgen/bin/python samples/verify_facts.py --markdown # print the FACTS table
"""
import csv
import email
import email.policy
import html
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profile")

# (id, query, file, locator, phrase)
# locator grammar (also used in FACTS.md):
#   page N            pdf physical page (1-based) / docx or odt page-equivalent
#   slide N body|notes
#   sheet NAME row N  xlsx, 1-based sheet row (row 1 is the header)
#   line N            csv/tsv/text file line (1-based; line 1 of csv/tsv is the header)
#   message           the email's own text part(s); attachment NAME page N
#   event UID         ics VEVENT
#   table T rowid N   sqlite
#   cell N            ipynb cell (0-based), source + outputs
#   member NAME       zip member
#   exif TAG / tag KEY
FACTS = [
    ("F01", "price of the picture book browser bins on the joinery invoice",
     "Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf", "page 2",
     "Low picture-book browser bin, birch ply 2 £465.00 £930.00"),
    ("F02", "Hartcliffe invoice balance due after deposit",
     "Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf", "page 2",
     "Balance due £3,046.80"),
    ("F03", "until when is the joinery quotation valid",
     "Mail/Inbox/2024-02-27 Hartcliffe Joinery - quote Q-0871.eml", "attachment Quote_Q-0871.pdf page 1",
     "This quotation is valid until 31 March 2024"),
    ("F04", "quoted price per browser bin before the price rise",
     "Mail/Inbox/2024-02-27 Hartcliffe Joinery - quote Q-0871.eml", "attachment Quote_Q-0871.pdf page 1",
     "Low picture-book browser bin, birch ply 2 £440.00 £880.00"),
    ("F05", "what share of sales were children's books in 2023",
     "Documents/Shop/Lantern Business Plan 2024-2026.pdf", "page 5 (printed label 2)",
     "Children's books were 18% of 2023 sales (£33,552)"),
    ("F06", "shop turnover last year in the business plan summary",
     "Documents/Shop/Lantern Business Plan 2024-2026.pdf", "page 3 (printed label iii)",
     "Turnover in the 2023 calendar year was £186,400"),
    ("F07", "largest grant the West of England retail fund gives",
     "Downloads/WEIRF_Applicant_Guidance_2024.pdf", "page 2",
     "Grants range from £1,000 to £7,500 per business."),
    ("F08", "how much match funding does the retail fund require",
     "Downloads/WEIRF_Applicant_Guidance_2024.pdf", "page 2",
     "match funding of at least 30% of total project costs"),
    ("F09", "grant amount requested in my first draft application",
     "Documents/Grants/WEIRF application draft v1.docx", "page 2",
     "Grant requested: £8,500."),
    ("F10", "final grant application total project cost and amount requested",
     "Documents/Grants/WEIRF application FINAL.odt", "page 1",
     "Grant requested: £7,200. Match funding: £3,750 (34% of the total)"),
    ("F11", "what would happen if the grant is refused, from my pitch notes",
     "Documents/Shop/Childrens Corner pitch.pptx", "slide 3 notes",
     "If the grant falls through, the overdraft can cover the shortfall until the summer holidays."),
    ("F12", "toddler group parents asking for a place to sit",
     "Documents/Shop/Childrens Corner pitch.pptx", "slide 2 notes",
     "Mention the mums from the Tuesday toddler group"),
    ("F13", "takings on Valentine's day blind date book promotion",
     "Documents/Shop/Takings Feb-Mar 2024.xlsx", "sheet Daily takings row 13",
     "2024-02-14 | Wednesday | 1043.2 | 241.3 | 1284.5 | 96 | Blind Date with a Book promotion"),
    ("F14", "best trading day of the quarter",
     "Documents/Shop/Takings Feb-Mar 2024.xlsx", "sheet Daily takings row 34",
     "2024-03-09 | Saturday | 1168.4 | 244.4 | 1412.8 | 104 | Saturday before Mother's Day - best day of the quarter"),
    ("F15", "total takings in February 2024",
     "Documents/Shop/Takings Feb-Mar 2024.xlsx", "sheet Monthly summary row 2",
     "February 2024 | 25 | 15045.49 | 601.82"),
    ("F16", "monthly loan repayment on the March bank statement",
     "Documents/Finance/bank_statement_2024-03.csv", "line 14",
     "28/03/2024,DD,AVON COMMUNITY BANK LOAN REPAYMENT,275.21"),
    ("F17", "deposit paid to Hartcliffe Joinery",
     "Documents/Finance/bank_statement_2024-03.csv", "line 4",
     "04/03/2024,DEB,HARTCLIFFE JOINERY DEP Q-0871,1184.40"),
    ("F18", "how many copies of Salt Roads of Somerset are in stock",
     "Documents/Shop/stock_export_2024-04-02.tsv", "line 2",
     "Salt Roads of Somerset\tImogen Trask\tLocal interest\t7\t14.99"),
    ("F19", "why Aoife could not work her Saturday shift",
     "Mail/Inbox/2024-02-06 Aoife - Saturday swap.eml", "message",
     "My cousin's wedding in Galway has moved to Saturday 17 February"),
    ("F20", "dates of Children's Book Week 2024",
     "Mail/Inbox/2024-02-12 IBN February bulletin.eml", "message",
     "Children’s Book Week runs from Monday 29 April to Sunday 5 May 2024"),
    ("F21", "how many copies of the French heron book were shipped",
     "Mail/Inbox/2024-02-29 Editions du Heron - commande.eml", "message",
     "Nous confirmons l'envoi de 24 exemplaires de « Le Héron qui lisait »"),
    ("F22", "when will the Editions du Héron delivery arrive",
     "Mail/Inbox/2024-02-29 Editions du Heron - commande.eml", "message",
     "La livraison est prévue le lundi 11 mars à Bristol"),
    ("F23", "did I choose the cafe or the children's corner for the back room",
     "Mail/Sent/2024-03-05 Re Re Cafe or childrens corner.eml", "message",
     "decision made: we are going with the children's corner, not the cafe"),
    ("F24", "cafe food business registration how long before opening",
     "Mail/Inbox/2024-03-05 Gareth - Re Cafe or childrens corner.eml", "message",
     "food business with the council at least 28 days before opening"),
    ("F25", "when is the VAT return due",
     "Mail/Inbox/2024-03-05 Gareth - Re Cafe or childrens corner.eml", "message",
     "your VAT quarter ends on 31 March and the return is due by 7 May 2024"),
    ("F26", "deadline to return the grant acceptance form",
     "Mail/Inbox/2024-04-10 WEIRF grant offer.eml", "message",
     "Please sign and return the acceptance form by Friday 26 April 2024."),
    ("F27", "which evening is choir rehearsal every week",
     "Calendar/Ros.ics", "event choir-weekly-2024@lanternbookshop.example",
     "RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20240430T235959Z"),
    ("F28", "choir practice weeks with no rehearsal (half-term, Easter)",
     "Calendar/Ros.ics", "event choir-weekly-2024@lanternbookshop.example",
     "EXDATE;TZID=Europe/London:20240213T193000,20240402T193000"),
    ("F29", "day the shop was closed for stock-take",
     "Calendar/Ros.ics", "event stocktake-20240304@lanternbookshop.example",
     "DTSTART;VALUE=DATE:20240304"),
    ("F30", "small press fair stall number",
     "Calendar/Ros.ics", "event small-press-fair-20240413@lanternbookshop.example",
     "SUMMARY:Bristol Small Press Fair - stall 22"),
    ("F31", "who ordered the lichens field guide and when",
     "Documents/Apps/special_orders.sqlite", "table orders rowid 5",
     "5 | 1 | 9781915010742 | A Field Guide to British Lichens | 2024-03-12 | collected | 5.0 | 2024-03-19"),
    ("F32", "date of the choir spring concert",
     "Notes/choir.md", "line 9",
     "Spring concert: **Saturday 27 April 2024, 7pm, St Agnes Church**"),
    ("F33", "bank loan interest rate and term",
     "Notes/bank-meeting-2024-02-20.md", "line 5",
     "Loan agreed in principle: **£6,000 over 24 months at 9.4% APR**"),
    ("F34", "when did I plant the potatoes at the allotment",
     "Notes/allotment.md", "line 7",
     "30 March: planted first early potatoes, variety Charlotte"),
    ("F35", "till sync upload error payload too large",
     "Code/till-sync/logs/sync-2024-03.log", "line 16",
     "2024-03-09 23:15:07 ERROR upload failed: HTTP 413 Payload Too Large - batch of 312 lines exceeds limit of 250"),
    ("F36", "why does the sync script use batches of 200",
     "Code/till-sync/sync_sales.py", "line 15",
     "# Severn's endpoint rejects batches over 250 lines with HTTP 413"),
    ("F37", "how many days of till backups are kept on the NAS",
     "Code/till-sync/backup.sh", "line 4",
     "# Keeps 14 days of copies; older ones are deleted."),
    ("F38", "shop id in the till sync configuration",
     "Code/till-sync/config.json", "line 2",
     "\"shop_id\": \"LANT-0042\","),
    ("F39", "what did the reading group think of The Lighthouse Ledger",
     "Documents/Shop/reading_group.jsonl", "line 3",
     "\"verdict\": \"7 loved it, 4 found the ending rushed\""),
    ("F40", "best day in the takings notebook analysis",
     "Code/notebooks/takings_analysis.ipynb", "cell 2",
     "Best day: 2024-03-09 £1,412.80"),
    ("F41", "stall fee for shops at the Bristol small press fair",
     "Downloads/Bristol Small Press Fair 2024 - Exhibitor information.html", "document",
     "Stall fee: £45 (shops), £25 (individual makers)."),
    ("F42", "publication date of Salt Roads of Somerset in the distributor feed",
     "Downloads/severn_onix_feed_2024-03.xml", "line 26",
     "<PublishingDate><PublishingDateRole>01</PublishingDateRole><Date>20240321</Date></PublishingDate>"),
    ("F43", "when does the bookshop website domain need renewing",
     "Documents/Archive/lantern-website-backup-2024-02-01.zip", "member README.txt",
     "Domain renewal due 14 September 2024."),
    ("F44", "cost of Felix's trampoline birthday party",
     "Documents/Personal/Felix birthday plan.txt", "line 4",
     "8 friends + Felix = 9 jumpers at £14.50 each = £130.50, pizza included."),
    ("F45", "things to do before the small press fair",
     "Desktop/todo.txt", "line 5",
     "Small Press Fair Sat 13 April: float £80 in coins"),
    ("F46", "photo of the blind date with a book window display",
     "Pictures/2024/IMG_20240217_101522.jpg", "exif DateTimeOriginal",
     "2024:02:17 10:15:22"),
    ("F47", "allotment photo taken with which phone",
     "Pictures/2024/IMG_20240330_112605.jpg", "exif Model",
     "iPhone 13"),
    ("F48", "choir alto practice recording",
     "Music/Choir/Requiem alto line practice.mp3", "tag title",
     "Requiem - Offertoire alto line (practice)"),
    ("F49", "shelving installation video",
     "Videos/2024-03-17 shelving install timelapse.mp4", "tag creation_time",
     "2024-03-17T15:05:00"),
]


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


def html_text(s):
    s = re.sub(r"(?is)<(script|style|title)\b.*?</\1>", " ", s)
    s = re.sub(r"<[^>]+>", " ", s)
    return html.unescape(s)


def pdf_page(data_or_path, n):
    if isinstance(data_or_path, bytes):
        with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
            f.write(data_or_path)
            f.flush()
            return pdf_page(f.name, n)
    return subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), data_or_path, "-"],
                          check=True, capture_output=True, text=True).stdout


def docx_pages(path):
    import docx
    from docx.oxml.ns import qn
    d = docx.Document(path)
    pages, cur = [], []
    for el in d.element.body.iterchildren():
        if el.tag == qn("w:p"):
            if any(br.get(qn("w:type")) == "page" for br in el.iter(qn("w:br"))):
                pages.append(" ".join(cur)); cur = []
                continue
            cur.append("".join(t.text or "" for t in el.iter(qn("w:t"))))
        elif el.tag == qn("w:tbl"):
            for tr in el.iter(qn("w:tr")):
                cur.append(" | ".join("".join(t.text or "" for t in tc.iter(qn("w:t"))) for tc in tr.iter(qn("w:tc"))))
    pages.append(" ".join(cur))
    return pages


def odt_pages(path):
    xml = zipfile.ZipFile(path).read("content.xml").decode("utf-8")
    body = xml.split("<office:text>", 1)[1]
    parts = re.split(r'(?=<text:[hp][^>]*text:style-name="PageBreak")', body)
    return [html.unescape(re.sub(r"<[^>]+>", " ", p)) for p in parts]


def unit(rel, loc):
    path = os.path.join(ROOT, rel)
    ext = rel.rsplit(".", 1)[-1].lower()
    m = re.match(r"page (\d+)", loc)
    if ext == "pdf" and m:
        return pdf_page(path, int(m.group(1)))
    if ext == "docx" and m:
        return docx_pages(path)[int(m.group(1)) - 1]
    if ext == "odt" and m:
        return odt_pages(path)[int(m.group(1)) - 1]
    if ext == "pptx":
        from pptx import Presentation
        n, what = re.match(r"slide (\d+) (\w+)", loc).groups()
        s = Presentation(path).slides[int(n) - 1]
        if what == "notes":
            return s.notes_slide.notes_text_frame.text
        return " ".join(sh.text_frame.text for sh in s.shapes if sh.has_text_frame)
    if ext == "xlsx":
        import openpyxl
        sheet, row = re.match(r"sheet (.+) row (\d+)", loc).groups()
        ws = openpyxl.load_workbook(path)[sheet]
        vals = []
        for c in ws[int(row)]:
            v = c.value
            if hasattr(v, "date"):
                v = v.date().isoformat()
            vals.append("" if v is None else str(v))
        return " | ".join(vals)
    if loc.startswith("line "):
        n = int(loc.split()[1])
        with open(path, encoding="utf-8", newline="") as f:
            return f.read().split("\n")[n - 1]
    if ext == "eml":
        msg = email.message_from_binary_file(open(path, "rb"), policy=email.policy.default)
        if loc == "message":
            out = []
            for part in msg.walk():
                if part.get_content_maintype() == "text" and not part.get_filename():
                    t = part.get_content()
                    out.append(html_text(t) if part.get_content_subtype() == "html" else t)
            # quoted reply lines ("> ...") are part of the message text as well
            return "\n".join(out)
        name, n = re.match(r"attachment (\S+) page (\d+)", loc).groups()
        for part in msg.walk():
            if part.get_filename() == name:
                return pdf_page(part.get_payload(decode=True), int(n))
    if ext == "ics":
        uid = loc.split()[1]
        raw = open(path, encoding="utf-8").read().replace("\r\n ", "").replace("\r\n", "\n")
        for block in raw.split("BEGIN:VEVENT")[1:]:
            if "UID:%s\n" % uid in block:
                return block.split("END:VEVENT")[0]
    if ext == "sqlite":
        t, n = re.match(r"table (\w+) rowid (\d+)", loc).groups()
        con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        row = con.execute("SELECT * FROM %s WHERE rowid = ?" % t, (int(n),)).fetchone()
        return " | ".join(str(v) for v in row)
    if ext == "ipynb":
        c = json.load(open(path, encoding="utf-8"))["cells"][int(loc.split()[1])]
        outs = "".join("".join(o.get("text", "")) for o in c.get("outputs", []))
        return "".join(c["source"]) + "\n" + outs
    if ext == "html":
        return html_text(open(path, encoding="utf-8").read())
    if ext == "zip":
        return zipfile.ZipFile(path).read(loc.split(" ", 1)[1]).decode("utf-8")
    if ext == "jpg":
        import piexif
        tag = loc.split()[1]
        e = piexif.load(path)
        for ifd in ("0th", "Exif"):
            for k, v in e[ifd].items():
                if piexif.TAGS[ifd][k]["name"] == tag:
                    return v.decode() if isinstance(v, bytes) else str(v)
    if ext in ("mp3", "mp4"):
        key = loc.split()[1]
        out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format_tags=" + key,
                              "-of", "default=nw=1:nk=1", path], check=True, capture_output=True,
                             text=True).stdout
        return out
    raise ValueError("no extractor for %s / %s" % (rel, loc))


def main():
    if "--markdown" in sys.argv:
        print("| id | query | file (under samples/profile/) | locator | exact phrase |")
        print("|---|---|---|---|---|")
        for fid, q, rel, loc, phrase in FACTS:
            ph = phrase.replace("|", "\\|").replace("\t", "⇥")
            print("| %s | %s | `%s` | %s | `%s` |" % (fid, q, rel, loc, ph))
        return 0
    bad = 0
    for fid, q, rel, loc, phrase in FACTS:
        text = unit(rel, loc)
        ok = text is not None and norm(phrase) in norm(text)
        if not ok:
            bad += 1
            print("FAIL %s %s [%s]\n     want: %r\n     got:  %r" % (fid, rel, loc, phrase, norm(text or "")[:400]))
    print("%d/%d facts verified" % (len(FACTS) - bad, len(FACTS)))
    bad += structure_checks()
    return 1 if bad else 0


def structure_checks():
    """Format features the tests rely on (not text facts)."""
    from pypdf import PdfReader
    import openpyxl
    import piexif
    from pptx import Presentation
    j = lambda rel: os.path.join(ROOT, rel)
    mail = lambda rel: email.message_from_binary_file(open(j(rel), "rb"), policy=email.policy.default)
    checks = []
    r = PdfReader(j("Documents/Shop/Lantern Business Plan 2024-2026.pdf"))
    checks.append(("business plan page labels i,ii,iii,1..4", r.page_labels == ["i", "ii", "iii", "1", "2", "3", "4"]))
    checks.append(("invoice has 2 pages", len(PdfReader(j("Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf")).pages) == 2))
    checks.append(("guidance has 3 pages", len(PdfReader(j("Downloads/WEIRF_Applicant_Guidance_2024.pdf")).pages) == 3))
    checks.append(("docx has 3 page-break pages", len(docx_pages(j("Documents/Grants/WEIRF application draft v1.docx"))) == 3))
    checks.append(("odt has 2 pages (break-before)", len(odt_pages(j("Documents/Grants/WEIRF application FINAL.odt"))) == 2))
    prs = Presentation(j("Documents/Shop/Childrens Corner pitch.pptx"))
    checks.append(("pptx 4 slides, all with notes", len(prs.slides) == 4 and all(s.notes_slide.notes_text_frame.text for s in prs.slides)))
    wb = openpyxl.load_workbook(j("Documents/Shop/Takings Feb-Mar 2024.xlsx"))
    checks.append(("xlsx sheets", wb.sheetnames == ["Daily takings", "Monthly summary"]))
    checks.append(("xlsx dates are dates", wb["Daily takings"]["A2"].is_date))
    m = mail("Mail/Inbox/2024-02-12 IBN February bulletin.eml")
    checks.append(("IBN mail is HTML-only", m.get_content_type() == "text/html" and not m.is_multipart()))
    m = mail("Mail/Inbox/2024-02-27 Hartcliffe Joinery - quote Q-0871.eml")
    checks.append(("quote mail has PDF attachment", [p.get_content_type() for p in m.iter_attachments()] == ["application/pdf"]))
    m = mail("Mail/Inbox/2024-02-29 Editions du Heron - commande.eml")
    checks.append(("Heron mail is iso-8859-1 8bit", m.get_content_charset() == "iso-8859-1"
                   and b"H\xe9ron" in open(j("Mail/Inbox/2024-02-29 Editions du Heron - commande.eml"), "rb").read()))
    a = mail("Mail/Sent/2024-03-04 Cafe or childrens corner.eml")
    b = mail("Mail/Inbox/2024-03-05 Gareth - Re Cafe or childrens corner.eml")
    c = mail("Mail/Sent/2024-03-05 Re Re Cafe or childrens corner.eml")
    checks.append(("reply thread headers", b["In-Reply-To"] == a["Message-ID"] and c["In-Reply-To"] == b["Message-ID"]
                   and c["References"].split() == [a["Message-ID"], b["Message-ID"]]))
    con = sqlite3.connect("file:%s?mode=ro" % j("Documents/Apps/special_orders.sqlite"), uri=True)
    checks.append(("sqlite tables", [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")] == ["customers", "orders"]))
    for rel in ("Pictures/2024/IMG_20240217_101522.jpg", "Pictures/2024/IMG_20240317_143812.jpg", "Pictures/2024/IMG_20240330_112605.jpg"):
        e = piexif.load(j(rel))
        checks.append(("EXIF date+GPS+model " + rel, piexif.ExifIFD.DateTimeOriginal in e["Exif"]
                       and piexif.GPSIFD.GPSLatitude in e["GPS"] and piexif.ImageIFD.Model in e["0th"]))
    # the quote's validity date appears nowhere except inside the attachment
    hits = [rel for rel, _, _ in walk_text() if "valid until 31 March 2024" in _]
    checks.append(("quote validity only in attachment", hits == []))
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(ROOT) for f in fs)
    n = sum(len(fs) for _, _, fs in os.walk(ROOT))
    checks.append(("size < 3 MB and 30-45 files (%d files, %d bytes)" % (n, total), total < 3_000_000 and 30 <= n <= 45))
    bad = 0
    for name, ok in checks:
        if not ok:
            bad += 1
            print("FAIL structure:", name)
    print("%d/%d structure checks passed" % (len(checks) - bad, len(checks)))
    return bad


def walk_text():
    for d, _, fs in os.walk(ROOT):
        for f in fs:
            path = os.path.join(d, f)
            raw = open(path, "rb").read()
            yield os.path.relpath(path, ROOT), None, raw.decode("utf-8", "replace")


if __name__ == "__main__":
    sys.exit(main())
