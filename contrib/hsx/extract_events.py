#!/usr/bin/env python3
"""
extract_events.py - builds the Xeon E5/E7 v3 ("hsx") uncore event catalog,
src/plat/events_hsx.c and src/plat/events_hsx.h, from the text extraction of
the Intel Xeon Processor E5 and E7 v3 Family Uncore Performance Monitoring
Reference Manual (331051-002, June 2015).

  extract_events.py [--manual FILE] --write     regenerate both files
  extract_events.py [--manual FILE] --check     exit 1 with a diff if the
                                                committed files differ
  extract_events.py [--manual FILE] --report    list every correction applied

--write and --check cover a third file, tests/data/hsx-manual-facts.tsv:
the facts of each entry (name, unit, encoding, counters, increments,
filter, source table) without the manual's text, so that a clone without
the manual can still check the compiled catalog against it
(tests/unit/test_events_hsx.c; tests/data/README says why).

For each box (UBox 2.2 ... R3QPI 2.11) it reads the "Events Ordered By Code"
table and the "Performance Monitor Event List" (per event: Title, Event
Code, Extra Select Bit, Max. Inc/Cyc, Register Restrictions, Filter
Dependency, Definition and the "Unit Masks for X" tables), checks the two
against each other and emits one catalog entry per (event, unit mask).

The text is a PDF extraction.  Markup (markdown headings, "\\_", "**",
<sup>) is decoded by clean(); everything else that is wrong in the text -
OCR confusions, lost characters, garbled tables, disagreements inside the
manual - is corrected only through the explicit tables below, each entry
with the reason.  The parser is strict: anything it does not recognise is
an error, and a correction that no longer applies is an error too, so the
tables cannot silently rot.  doc/hardware-notes.md ("Xeon E5/E7 v3",
"Event catalog corrections") lists the same decisions for readers.

Standard library only.
"""
import argparse
import difflib
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
MANUAL_DEFAULT = os.path.normpath(
    os.path.join(TOP, "..", "shared", "manuals", "004_e75f66526956f957.txt"))
OUT_C = os.path.join(TOP, "src", "plat", "events_hsx.c")
OUT_H = os.path.join(TOP, "src", "plat", "events_hsx.h")
OUT_FACTS = os.path.join(TOP, "tests", "data", "hsx-manual-facts.tsv")

# ---------------------------------------------------------------------------
# Boxes: where each one's two event tables are.  Headings are matched on the
# clean()ed text of lines that start with '#'.
# ---------------------------------------------------------------------------


class Box:
    def __init__(self, unit, prefix, nctr, ordered, evlist, end):
        self.unit, self.prefix, self.nctr = unit, prefix, nctr
        self.ordered, self.evlist, self.end = ordered, evlist, end
        self.list_sec = evlist.split()[0] if evlist[0].isdigit() \
            else evlist.split()[-1]


BOXES = [
    Box("ubox", "UNC_U_", 2, "2.2.4 UBOX Box Events Ordered By Code",
        "2.2.5 UBOX Box Performance Monitor Event List",
        "2.3 Caching Agent (Cbo) Performance Monitoring"),
    Box("cbo", "UNC_C_", 4, "2.3.4 CBO Box Events Ordered By Code",
        "2.3.6 CBO Box Performance Monitor Event List",
        "2.4 Ring Transfer (SBo) Performance Monitoring"),
    Box("sbox", "UNC_S_", 4, "2.4.4 SBO Box Events Ordered By Code",
        "2.4.6 SBO Box Performance Monitor Event List",
        "2.5 Home Agent (HA) Performance Monitoring"),
    Box("ha", "UNC_H_", 4, "2.5.3 HA Box Events Ordered By Code",
        "2.5.5 HA Box Performance Monitor Event List",
        "2.6 Memory Controller (IMC) Performance Monitoring"),
    Box("imc", "UNC_M_", 4, "2.6.5 iMC Box Events Ordered By Code",
        "2.6.7 iMC Box Performance Monitor Event List",
        "2.7 IRP Performance Monitoring"),
    Box("irp", "UNC_I_", 4, "2.7.4 IRP Box Events Ordered By Code",
        "2.7.5 IRP Box Performance Monitor Event List",
        "2.8 Power Control (PCU) Performance Monitoring"),
    Box("pcu", "UNC_P_", 4, "2.8.4 PCU Box Events Ordered By Code",
        "2.8.6 PCU Box Performance Monitor Event List",
        "2.9 Intel QPI Link Layer Performance Monitoring"),
    Box("qpi", "UNC_Q_", 4, "2.9.4 Intel QPI LL Box Events Ordered By Code",
        "Intel QPI LL Box Performance Monitor Event List 2.9.6",
        "2.10 R2PCIe Performance Monitoring"),
    Box("r2pcie", "UNC_R2_", 4, "2.10.4 R2PCIe Box Events Ordered By Code",
        "2.10.6 R2PCIe Box Performance Monitor Event List",
        "R3QPI Performance Monitoring 2.11"),
    Box("r3qpi", "UNC_R3_", 3, "2.11.4 R3QPI Box Events Ordered By Code",
        "2.11.6 R3QPI Box Performance Monitor Event List",
        "2.12 Packet Matching Reference"),
]

# Page furniture inside the event lists: running page headers that the
# extraction turned into headings, and stray fragments of the page
# decoration.  Recognised and skipped; any other unknown heading is an error.
PAGE_NOISE = {
    "Intel Xeon Processor E5 and E7 v3 Family Uncore Performance Monitoring",
    "Note:",
}
ORDERED_NOISE = {"/intel", "(mirei"}      # 2.8.4, a logo split into text

# EVF_* flag names, values as in src/plat/plat.h.
EVF = {
    "EVF_FILTER0": 0x0001, "EVF_FILTER1": 0x0002, "EVF_HA_MATCH": 0x0004,
    "EVF_PCU_BAND": 0x0008, "EVF_QPI_MATCH": 0x0010,
    "EVF_IRP_FILTER": 0x0020, "EVF_FIXED": 0x0100, "EVF_FREERUN": 0x0200,
}
# Register prefix of a "Filter Dep" item -> flag.
FILTER_FLAGS = {
    "CBoFilter0": "EVF_FILTER0",        # Cn_MSR_PMON_BOX_FILTER0, Table 2-18
    "CBoFilter1": "EVF_FILTER1",        # Cn_MSR_PMON_BOX_FILTER1, Table 2-19
    "HA_AddrMatch0": "EVF_HA_MATCH",    # Tables 2-65 .. 2-67
    "HA_AddrMatch1": "EVF_HA_MATCH",
    "HA_OpcodeMatch": "EVF_HA_MATCH",
    "PCUFilter": "EVF_PCU_BAND",        # PCU_MSR_PMON_BOX_FILTER, Table 2-160
    "QPIMask0": "EVF_QPI_MATCH",        # Tables 2-172 .. 2-175
    "QPIMask1": "EVF_QPI_MATCH",
    "QPIMatch0": "EVF_QPI_MATCH",
    "QPIMatch1": "EVF_QPI_MATCH",
    "IRPFilter": "EVF_IRP_FILTER",      # IRP_PmonFilter.OrderingQ, 2.7.5
}

# ===========================================================================
# Corrections.  Each table is keyed by where the text is; each value carries
# the reason.  All are listed in doc/hardware-notes.md.
# ===========================================================================

# Cyrillic look-alikes the OCR put into names and bit patterns ("НОМ",
# "ВҮР", "ь00000001").  Applied only to event names, unit-mask names and
# umask patterns, and every application is reported.
HOMOGLYPHS = {
    "\u041d": "H", "\u043d": "H",   # Cyrillic EN
    "\u041e": "O", "\u043e": "O",   # Cyrillic O
    "\u041c": "M", "\u043c": "M",   # Cyrillic EM
    "\u0412": "B",                  # Cyrillic VE
    "\u04ae": "Y",                  # Cyrillic straight U
    "\u0420": "P",                  # Cyrillic ER
    "\u044c": "b",                  # Cyrillic soft sign, for the 'b' of b0101
}

# Event symbols as printed (heading, ordered table or "Unit Masks for"
# title; after clean()) -> the symbol.  "O" for "0" is the OCR reading a
# zero as the letter; a space for "_" is a heading whose underscores the
# extraction dropped; "CYCL ES" is a name split by the table cell.
O_FOR_0 = "letter O printed for digit 0 (ordered table / sibling events)"
SPACES = "underscores lost in the extraction of the heading"
SYMBOL_FIXES = {
    ("cbo", "COUNTERO_OCCUPANCY"): ("COUNTER0_OCCUPANCY", O_FOR_0),
    ("cbo", "LLC LOOKUP"): ("LLC_LOOKUP", SPACES),
    ("cbo", "TOR INSERTS"): ("TOR_INSERTS", SPACES),
    ("ha", "DIRECT2CORE CYCLES DISABLED"):
        ("DIRECT2CORE_CYCLES_DISABLED", SPACES),
    ("ha", "IMC RETRY"): ("IMC_RETRY", SPACES),
    ("ha", "SBOO_CREDITS_ACQUIRED"): ("SBO0_CREDITS_ACQUIRED", O_FOR_0),
    ("ha", "SBOO_CREDIT_OCCUPANCY"): ("SBO0_CREDIT_OCCUPANCY", O_FOR_0),
    ("imc", "POWER_CRITICAL_THROTTLE_CYCL ES"):
        ("POWER_CRITICAL_THROTTLE_CYCLES", "name split by the table cell"),
    ("imc", "POWER THROTTLE CYCLES"): ("POWER_THROTTLE_CYCLES", SPACES),
    ("imc", "RD_CAS_RANKO"): ("RD_CAS_RANK0", O_FOR_0),
    ("imc", "WR_CAS_RANKO"): ("WR_CAS_RANK0", O_FOR_0),
    ("imc", "WMM TO RMM"): ("WMM_TO_RMM", SPACES),
    ("irp", "MISCO"): ("MISC0", O_FOR_0),
    ("irp", "RxR BL DRS INSERTS"): ("RxR_BL_DRS_INSERTS", SPACES),
    ("pcu", "FREQ_MAX_LIMIT_THERMAL_CYCLE S"):
        ("FREQ_MAX_LIMIT_THERMAL_CYCLES", "name split by the table cell"),
    ("pcu", "MEMORY_PHASE_SHEDDING_CYCLE S"):
        ("MEMORY_PHASE_SHEDDING_CYCLES", "name split by the table cell"),
    ("pcu", "COREO_TRANSITION_CYCLES"): ("CORE0_TRANSITION_CYCLES", O_FOR_0),
    ("pcu", "CORE9 TRANSITION CYCLES"): ("CORE9_TRANSITION_CYCLES", SPACES),
    ("pcu", "DEMOTIONS_COREO"): ("DEMOTIONS_CORE0", O_FOR_0),
    ("pcu", "FREQ BANDO CYCLES"): ("FREQ_BAND0_CYCLES",
                                   SPACES + "; letter O for digit 0"),
    ("pcu", "PKG_RESIDENCY_CO_CYCLES"): ("PKG_RESIDENCY_C0_CYCLES", O_FOR_0),
    ("pcu", "VR HOT CYCLES"): ("VR_HOT_CYCLES", SPACES),
    ("qpi", "RxL FLITS G1"): ("RxL_FLITS_G1", SPACES),
    ("qpi", "RxL INSERTS NCS"): ("RxL_INSERTS_NCS", SPACES),
    ("qpi", "RxL OCCUPANCY"): ("RxL_OCCUPANCY", SPACES),
    ("qpi", "TxL FLITS G2"): ("TxL_FLITS_G2", SPACES),
    ("qpi", "TxL INSERTS"): ("TxL_INSERTS", SPACES),
    ("r2pcie", "SBOO_CREDITS_ACQUIRED"): ("SBO0_CREDITS_ACQUIRED", O_FOR_0),
    ("r3qpi", "QPIO_AD_CREDITS_EMPTY"): ("QPI0_AD_CREDITS_EMPTY", O_FOR_0),
    ("r3qpi", "QPIO_BL_CREDITS_EMPTY"): ("QPI0_BL_CREDITS_EMPTY", O_FOR_0),
    ("r3qpi", "RING AK USED"): ("RING_AK_USED", SPACES),
    ("r3qpi", "RXR CYCLES NE"): ("RxR_CYCLES_NE",
                                 SPACES + "; case of 'Rx' lost"),
    ("r3qpi", "RxR CYCLES NE"): ("RxR_CYCLES_NE", SPACES),
    ("r3qpi", "SBOO_CREDITS_ACQUIRED"): ("SBO0_CREDITS_ACQUIRED", O_FOR_0),
    ("r3qpi", "VNO_CREDITS_REJECT"): ("VN0_CREDITS_REJECT", O_FOR_0),
    ("r3qpi", "VN1 CREDITS USED"): ("VN1_CREDITS_USED", SPACES),
}

# Unit-mask (extension) names: (unit, event, printed) -> (name, reason).
LO_0 = "digit 0 printed for letter O (CBO0..CBO3 in the same table)"
HI_0 = "digit 0 printed for letter O (CBO10..CBO13 in the same table)"
EXT_FIXES = {
    ("imc", "POWER_THROTTLE_CYCLES", "RANKO"): ("RANK0", O_FOR_0),
    ("qpi", "DIRECT2CORE", "FAILURE_CREDITS_RBT_ MISS"):
        ("FAILURE_CREDITS_RBT_MISS", "name split by the table cell"),
    ("r3qpi", "C_LO_AD_CREDITS_EMPTY", "CB04"): ("CBO4", LO_0),
    ("r3qpi", "C_LO_AD_CREDITS_EMPTY", "CB05"): ("CBO5", LO_0),
    ("r3qpi", "C_LO_AD_CREDITS_EMPTY", "CB06"): ("CBO6", LO_0),
    ("r3qpi", "C_LO_AD_CREDITS_EMPTY", "CB07"): ("CBO7", LO_0),
    ("r3qpi", "C_HI_AD_CREDITS_EMPTY", "CB08"): ("CBO8", HI_0),
    ("r3qpi", "C_HI_AD_CREDITS_EMPTY", "CB09"): ("CBO9", HI_0),
}

# Unit-mask patterns that are not 8 bits of [01x]: (unit, event, ext) ->
# (printed, pattern, reason).  Most lost one leading 'x' (the remaining
# bits line up with the sibling rows of the same table); the others lost a
# character after the '1', which the sibling event or row shows.
LOST_X = "one leading 'x' lost; bit position as in the sibling rows"
PATTERN_FIXES = {
    ("cbo", "MISC", "RSPI_WAS_FSE"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("cbo", "RxR_IPQ_RETRY", "ANY"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("cbo", "RxR_IPQ_RETRY", "FULL"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("cbo", "RxR_IPQ_RETRY", "ADDR_CONFLICT"):
        ("bxxxx1xx", "bxxxxx1xx", LOST_X),
    ("cbo", "RxR_IPQ_RETRY2", "AD_SBO"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("cbo", "RxR_IRQ_RETRY", "ANY"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("cbo", "RxR_IRQ_RETRY", "FULL"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("cbo", "RxR_IRQ_RETRY2", "AD_SBO"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("cbo", "RxR_IRQ_RETRY2", "TARGET"):
        ("bx1xxxxx", "bx1xxxxxx",
         "one 'x' lost after the '1': TARGET is bit 6 (0x40) in the twin "
         "events RxR_IPQ_RETRY2 and RxR_ISMQ_RETRY/RxR_IRQ_RETRY NID"),
    ("cbo", "RxR_ISMQ_RETRY", "ANY"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("cbo", "RxR_ISMQ_RETRY", "FULL"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("cbo", "RxR_ISMQ_RETRY2", "TARGET"):
        ("bx1xxxxx", "bx1xxxxxx",
         "one 'x' lost after the '1': TARGET is bit 6 (0x40) in "
         "RxR_IPQ_RETRY2"),
    ("cbo", "TxR_INSERTS", "AD_CACHE"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("ha", "ADDR_OPC_MATCH", "ADDR"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("ha", "DIRECTORY_LOOKUP", "SNP"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("ha", "DIRECTORY_UPDATE", "SET"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("ha", "REQUESTS", "READS_LOCAL"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("ha", "REQUESTS", "READS_REMOTE"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("ha", "SNOOP_RESP", "RSPI"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("ha", "SNOOP_RESP", "RSPS"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("ha", "SNP_RESP_RECV_LOCAL", "RSPI"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("ha", "SNP_RESP_RECV_LOCAL", "RSPS"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("ha", "SNP_RESP_RECV_LOCAL", "RSPCNFLCT"):
        ("bx1xxxxx", "bx1xxxxxx",
         "one 'x' lost after the '1': RSPCNFLCT is bit 6 (0x40) in "
         "SNOOP_RESP, and bit 5 is RSPxFWDxWB in this table"),
    ("ha", "TAD_REQUESTS_G1", "REGION9"): ("b0000010", "b00000010",
                                           "one leading '0' lost"),
    ("ha", "TRACKER_CYCLES_FULL", "GP"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("ha", "TRACKER_CYCLES_FULL", "ALL"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("imc", "CAS_COUNT", "RD_REG"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("imc", "CAS_COUNT", "RD_UNDERFILL"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("imc", "POWER_THROTTLE_CYCLES", "RANK0"):
        ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("imc", "PRE_COUNT", "PAGE_CLOSE"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("imc", "RD_CAS_RANK6", "BANK1"): ("b0000001", "b00000001",
                                       "one leading '0' lost"),
    ("imc", "RD_CAS_RANK6", "BANK2"): ("b0000010", "b00000010",
                                       "one leading '0' lost"),
    ("irp", "TRANSACTIONS", "ORDERINGQ"):
        ("bx1xxxxx", "bx1xxxxxx",
         "one 'x' lost after the '1': bit 5 is OTHER in the same table; "
         "ORDERINGQ is bit 6 (0x40)"),
    ("qpi", "DIRECT2CORE", "SUCCESS_RBT_HIT"):
        ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("qpi", "DIRECT2CORE", "FAILURE_CREDITS"):
        ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("qpi", "RxL_FLITS_G1", "HOM_REQ"): ("b0000010", "b00000010",
                                         "one leading '0' lost"),
    ("qpi", "TxL_FLITS_G0", "DATA"): ("600000010", "b00000010",
                                      "'b' read as the digit 6"),
    ("qpi", "TxL_FLITS_G1", "SNP"): ("b0000001", "b00000001",
                                     "one leading '0' lost"),
    ("qpi", "TxL_FLITS_G1", "HOM_REQ"): ("b0000010", "b00000010",
                                         "one leading '0' lost"),
    ("qpi", "TxL_FLITS_G2", "NDR_AK"): ("b0000010", "b00000010",
                                        "one leading '0' lost"),
    ("r3qpi", "RING_AK_USED", "CW"): ("b0000011", "b00000011",
                                      "one leading '0' lost"),
    ("r3qpi", "VN0_CREDITS_REJECT", "SNP"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("r3qpi", "VN0_CREDITS_REJECT", "NDR"): ("bxxxx1xx", "bxxxxx1xx", LOST_X),
    ("r3qpi", "VN0_CREDITS_USED", "SNP"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("r3qpi", "VN0_CREDITS_USED", "DRS"): ("bxxx1xxx", "bxxxx1xxx", LOST_X),
    ("r3qpi", "VN1_CREDITS_REJECT", "SNP"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("r3qpi", "VN1_CREDITS_REJECT", "NDR"): ("bxxxx1xx", "bxxxxx1xx", LOST_X),
    ("r3qpi", "VN1_CREDITS_USED", "HOM"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("r3qpi", "VN1_CREDITS_USED", "SNP"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("r3qpi", "VN1_CREDITS_USED", "NDR"): ("bxxxx1xx", "bxxxxx1xx", LOST_X),
    ("r3qpi", "VNA_CREDITS_ACQUIRED", "AD"): ("bxxxxxx1", "bxxxxxxx1", LOST_X),
    ("r3qpi", "VNA_CREDITS_ACQUIRED", "BL"): ("bxxxx1xx", "bxxxxx1xx", LOST_X),
    ("r3qpi", "VNA_CREDITS_REJECT", "SNP"): ("bxxxxx1x", "bxxxxxx1x", LOST_X),
    ("r3qpi", "VNA_CREDITS_REJECT", "NDR"): ("bxxxx1xx", "bxxxxx1xx", LOST_X),
    ("r3qpi", "VNA_CREDITS_REJECT", "DRS"): ("bxxx1xxx", "bxxxx1xxx", LOST_X),
}

# "Filter Dep" entries that contradict the manual's own filter-register
# tables: (unit, event, ext, printed) -> (text, reason).
FILTER_FIXES = {
    ("cbo", "LLC_LOOKUP", "READ", "CBoFilter0[22:18]"):
        ("CBoFilter0[23:17]",
         "Table 2-18 puts the state field at 23:17 (7 bits), as do the other "
         "five LLC_LOOKUP rows; 22:18 is the 5-bit field of the previous "
         "generation"),
    ("cbo", "LLC_VICTIMS", "NID", "CBoFilter1[17:10]"):
        ("CBoFilter1[15:0]",
         "Table 2-19 puts nid at 15:0, as printed for every other NID "
         "sub-event"),
}

# Filter dependencies that a definition states but the table has no "Filter
# Dep" column for: (unit, event, ext) -> (text, reason).
INFERRED_FILTERS = {
    ("irp", "CACHE_TOTAL_OCCUPANCY", "SOURCE"):
        ("IRPFilter[4:0]",
         "the description says it counts only the port selected in "
         "IRP_PmonFilter.OrderingQ, the field TRANSACTIONS.ORDERINGQ prints "
         "as IRPFilter[4:0]"),
}

# OCR damage inside one description: (unit, event, ext or None) ->
# [(printed, text)].  Empty: the two oddities left in the kept prose,
# "Cacheno" and "PCIDCAHin5t", are in Intel's own event data too (they
# appear verbatim in other tools built from it), so they are the manual's
# text, not extraction noise, and are kept.
DESC_FIXES = {
}

# The same OCR confusions as in SYMBOL_FIXES, inside description prose:
# whole word -> (word, reason); every replacement is reported.
DESC_WORD_FIXES = {
    "VNO": ("VN0", "letter O printed for digit 0 ('for VNO' next to 'for "
            "VN1'; the unit masks are VN0/VN1)"),
    "QPIO": ("QPI0", "letter O printed for digit 0 (the event is "
             "QPI0_*_CREDITS_EMPTY)"),
}

# A table sheet whose rows the extraction scrambled beyond parsing: (unit,
# event, sheet index) -> (SHA-256 of the sheet's text with whitespace
# collapsed, rows).  The digest ties the hand transcription to exactly the
# text it was read from: if the extraction changes, the script stops and
# prints the new digest, and someone re-reads the sheet.
# Table 2-41 sheet 2 (TOR_OCCUPANCY) came out as two interleaved column
# dumps.  Every name, pattern and filter below is legible in the scramble
# (the right-hand column lists each "NAME<tab>bPATTERN"); the filter of a
# row follows Table 2-40 (TOR_INSERTS), whose sheet has the same rows in
# the same order and is intact; descriptions are the legible fragments.
TOR_OCC_ROWS = [
    ("WB", "b00010000", "",
     "Writebacks Write transactions in the TOR. This does not include "
     "\"RFO\", but actual operations that contain data being sent from the "
     "core."),
    ("LOCAL_OPCODE", "b00100001", "CBoFilter1[28:20]",
     "Local Memory - Opcode Matched Number of outstanding transactions, "
     "satisfied by an opcode, in the TOR that are satisfied by locally HOMed "
     "memory."),
    ("MISS_LOCAL_OPCODE", "b00100011", "CBoFilter1[28:20]",
     "Misses to Local Memory - Opcode Matched Number of outstanding Miss "
     "transactions, satisfied by an opcode, in the TOR that are satisfied by "
     "locally HOMed memory."),
    ("LOCAL", "b00101000", "",
     "Local Memory Number of outstanding transactions in the TOR that are "
     "satisfied by locally HOMed memory."),
    ("MISS_LOCAL", "b00101010", "",
     "Misses to Local Memory Number of outstanding Miss transactions in the "
     "TOR that are satisfied by locally HOMed memory."),
    ("NID_OPCODE", "b01000001", "CBoFilter1[28:20], CBoFilter1[15:0]",
     "NID and Opcode Matched TOR entries that match a NID and an opcode."),
    ("NID_MISS_OPCODE", "b01000011", "CBoFilter1[28:20], CBoFilter1[15:0]",
     "NID and Opcode Matched Miss Number of outstanding Miss requests in the "
     "TOR that match a NID and an opcode."),
    ("NID_EVICTION", "b01000100", "CBoFilter1[15:0]",
     "NID Matched Evictions Number of outstanding NID matched eviction "
     "transactions in the TOR."),
    ("NID_ALL", "b01001000", "CBoFilter1[15:0]",
     "NID Matched Number of NID matched outstanding requests in the TOR. The "
     "NID is programmed in Cn_MSR_PMON_BOX_FILTER.nid."),
    ("NID_MISS_ALL", "b01001010", "CBoFilter1[15:0]",
     "NID Matched Number of outstanding Miss requests in the TOR that match "
     "a NID."),
    ("NID_WB", "b01010000", "CBoFilter1[15:0]",
     "NID Matched Writebacks NID matched write transactions in the TOR."),
    ("REMOTE_OPCODE", "b10000001", "CBoFilter1[28:20]",
     "Remote Memory - Opcode Matched Number of outstanding transactions, "
     "satisfied by an opcode, in the TOR that are satisfied by remote caches "
     "or remote memory."),
    ("MISS_REMOTE_OPCODE", "b10000011", "CBoFilter1[28:20]",
     "Misses to Remote Memory - Opcode Matched Number of outstanding Miss "
     "transactions, satisfied by an opcode, in the TOR that are satisfied by "
     "remote caches or remote memory."),
    ("REMOTE", "b10001000", "",
     "Remote Memory Number of outstanding transactions in the TOR that are "
     "satisfied by remote caches or remote memory."),
    ("MISS_REMOTE", "b10001010", "",
     "Misses to Remote Memory Number of outstanding Miss transactions in the "
     "TOR that are satisfied by remote caches or remote memory."),
]
SHEET_REPLACEMENTS = {
    ("cbo", "TOR_OCCUPANCY", 1): (
        "d89efbb5745f617d0d26530d9d427087d01c21479e5fd0cadc88a98a99b2c53d",
        TOR_OCC_ROWS),
}

# Where the "ordered by code" table and the event list disagree:
# (unit, event, field) -> (ordered value, list value, value used, reason).
MISMATCH_DECISIONS = {
}

# Events the event list has and the ordered table lacks (or the reverse):
# (unit, event) -> reason for catalogue (list-only) / omission.
LIST_ONLY = {
    ("pcu", "UFS_TRANSITIONS_RING_GV"):
        "in the event list (code 0x79, counters 0-3, max 1) but not in the "
        "ordered table; catalogued from the event list",
}

# Fixed and free-running counters: not events of any event list, listed
# here from the register tables (the checks make sure those rows are still
# in the manual).  unit names are proposals for the plat_hsx unit types.
FIXED_COUNTERS = [
    # name, unit, flag, source, manual row that must exist, desc
    ("UNC_U_CLOCKTICKS", "ubox_fixed", "EVF_FIXED",
     "2.2.2 Table 2-10",
     "U_MSR_PMON_UCLK_FIXED_CTR\t0x0704\t64",
     "UBox fixed counter U_MSR_PMON_UCLK_FIXED_CTR (MSR 0x704, enable in "
     "U_MSR_PMON_UCLK_FIXED_CTL 0x703): 48-bit count of uncore clocks "
     "(UCLK)."),
    ("UNC_M_CLOCKTICKS", "imc_fixed", "EVF_FIXED",
     "2.6.3 Table 2-116",
     "MC_CHy_PCI_PMON_FIXED_CTR\tD4+D0\t32x2",
     "iMC channel fixed counter MC_CHy_PCI_PMON_FIXED_CTR (config 0xD0/0xD4, "
     "control MC_CHy_PCI_PMON_FIXED_CTL 0xF0): 48-bit count of DRAM clocks "
     "(DCLK, half the DDR rate)."),
    ("UNC_P_CORE_CC6_CTR", "pcu_cstate", "EVF_FREERUN",
     "2.8.2 Table 2-161",
     "PCU_MSR_CORE_CC6_CTR\t0x03FD\t64",
     "Free-running 64-bit MSR 0x3FD: cycles one of the cores is in C6."),
    ("UNC_P_CORE_CC3_CTR", "pcu_cstate", "EVF_FREERUN",
     "2.8.2 Table 2-162",
     "PCU_MSR_CORE_CC3_CTR\t0x03FC\t64",
     "Free-running 64-bit MSR 0x3FC: cycles one of the cores is in C3."),
    ("UNC_P_CORE_PC2_CTR", "pcu_cstate", "EVF_FREERUN",
     "2.8.2 Table 2-163",
     "PCU_MSR_CORE_PC2_CTR\t0x060D\t64",
     "Free-running 64-bit MSR 0x60D: cycles the package is in C2."),
    ("UNC_P_CORE_PC3_CTR", "pcu_cstate", "EVF_FREERUN",
     "2.8.2 Table 2-164",
     "PCU_MSR_CORE_PC3_CTR\t0x03F8\t64",
     "Free-running 64-bit MSR 0x3F8: cycles the package is in C3."),
    # Table 1-2 lists 0x3F9 with the C-state counters but no table defines
    # it; Linux's cstate.c (MSR_PKG_C6_RESIDENCY, HASWELL_X) and PCM read
    # it as package C6 residency (doc/hardware-notes.md, PCU C-state
    # counters).
    ("UNC_P_CORE_PC6_CTR", "pcu_cstate", "EVF_FREERUN",
     "2.8.2 (Table 1-2 lists 0x3F9); Linux cstate.c MSR_PKG_C6_RESIDENCY",
     "0x60D,0x3F8, 0x3F9, 0x3FC, 0x3FD\tFree Running C-State Counters",
     "Free-running 64-bit MSR 0x3F9: cycles the package is in C6."),
    ("UNC_Q_LINK_IDLE", "qpi_link", "EVF_FREERUN",
     "2.9.2.4 Table 2-178",
     "Q_Py_PCI_PMON_LINK_IDLE\tC8\t32",
     "Free-running 32-bit counter Q_Py_PCI_PMON_LINK_IDLE (config 0xC8): "
     "cycles the receive side of the link is idle, including null cycles "
     "and L1."),
    ("UNC_Q_LINK_LLR", "qpi_link", "EVF_FREERUN",
     "2.9.2.4 Table 2-179",
     "Q_Py_PCI_PMON_LINK_LLR\tD0\t32",
     "Free-running 32-bit counter Q_Py_PCI_PMON_LINK_LLR (config 0xD0): "
     "cycles the receive side of the link is in link-level retry (LLR)."),
]

# ===========================================================================
# Reading the text
# ===========================================================================


class ManualError(Exception):
    pass


def fail(msg):
    raise ManualError(msg)


_used = set()          # correction keys that applied, per table
_applied = []          # (line, table, what) for --report


def use(table, key, line, what):
    _used.add((table, key))
    _applied.append((line, table, what))


def clean(s):
    """Decodes the extraction's markup (not OCR): markdown emphasis and
    escapes, HTML tags, trademark signs, bullets, heading hashes."""
    s = re.sub(r"<sup>.*?</sup>", "", s)
    s = re.sub(r"</?(?:b|i|ul|li|sup|sub)>", " ", s)
    s = s.replace("\\_", "_").replace("\\*", "*").replace("**", "")
    s = s.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")
    s = s.replace("\u00ae", "").replace("\u2013", "-").replace("\u00d7", "x")
    s = s.strip()
    s = re.sub(r"^#+\s*", "", s)
    s = re.sub(r"^(?:\u2022|- )\s*", "", s)
    return s.strip()


def homoglyphs(s, line, where):
    out = "".join(HOMOGLYPHS.get(c, c) for c in s)
    if out != s:
        use("HOMOGLYPHS", out, line, "%s: %r -> %r" % (where, s, out))
    return out


TABLE_RE = re.compile(r"^Table (2-\d+)\.\s*Unit Masks for (.+?)\s*$")
HEADING_OK = re.compile(r"^[A-Za-z0-9_ ]+$")


def fix_symbol(unit, printed, line):
    printed = homoglyphs(printed, line, "symbol")
    key = (unit, printed)
    if key in SYMBOL_FIXES:
        name, why = SYMBOL_FIXES[key]
        use("SYMBOL_FIXES", key, line, "%s %r -> %s (%s)" %
            (unit, printed, name, why))
        return name
    return printed


def find_heading(lines, text, start=0):
    for i in range(start, len(lines)):
        if lines[i].lstrip().startswith("#") and clean(lines[i]) == text:
            return i
    fail("heading %r not found" % text)


def parse_ctrs(s, where):
    m = re.fullmatch(r"(\d)(?:-(\d))?", s.strip())
    if not m:
        fail("%s: counters %r" % (where, s))
    lo = int(m.group(1))
    hi = int(m.group(2)) if m.group(2) else lo
    return sum(1 << i for i in range(lo, hi + 1))


def parse_ordered(lines, box, a, b):
    """Rows of the 'Events Ordered By Code' table in lines[a:b]."""
    rows = {}
    has_ext = None
    for i in range(a, b):
        raw = lines[i]
        if raw.lstrip().startswith("#") and \
                "Common Metrics (Derived Events)" in clean(raw):
            break
        if "\t" not in raw:
            continue
        f = [x.strip() for x in raw.split("\t")]
        while f and f[-1] == "":
            f.pop()
        if not f:
            continue
        if f[0] == "Symbol Name: Definition":     # derived metrics
            break
        if f[0] == "Symbol Name":
            if f[1:3] != ["Event Code", "Ctrs"]:
                fail("%s line %d: ordered header %r" % (box.unit, i + 1, raw))
            this = f[3] == "Extra Select Bit"
            if has_ext is not None and has_ext != this:
                fail("%s: header changes at line %d" % (box.unit, i + 1))
            has_ext = this
            continue
        if len(f) == 1 and clean(f[0]) in ORDERED_NOISE:
            continue
        if has_ext is None:
            fail("%s line %d: row before header" % (box.unit, i + 1))
        n = 5 if has_ext else 4
        if len(f) < n:
            fail("%s line %d: short ordered row %r" % (box.unit, i + 1, raw))
        sym = fix_symbol(box.unit, clean(f[0]), i + 1)
        if not re.fullmatch(r"[A-Za-z0-9_]+", sym):
            fail("%s line %d: symbol %r" % (box.unit, i + 1, sym))
        code = f[1]
        if not re.fullmatch(r"0x[0-9a-fA-F]{2}", code):
            fail("%s line %d: code %r" % (box.unit, i + 1, code))
        ext = int(f[3]) if has_ext else 0
        mi = f[4] if has_ext else f[3]
        if not mi.isdigit():
            fail("%s line %d: max inc %r" % (box.unit, i + 1, mi))
        if sym in rows:
            fail("%s: %s twice in the ordered table" % (box.unit, sym))
        rows[sym] = dict(code=int(code, 16),
                         ctr_mask=parse_ctrs(f[2], "%s %s" % (box.unit, sym)),
                         ext=ext, max_inc=int(mi),
                         desc=clean(f[n]) if len(f) > n else "",
                         line=i + 1)
    if not rows:
        fail("%s: empty ordered table" % box.unit)
    return rows


class Event:
    def __init__(self, sym, line):
        self.sym, self.line = sym, line
        self.meta = []          # (line, clean text) before the first table
        self.tables = []        # [table number, has_filter, [rows]]
        self.sheets = 0


def parse_list(lines, box, a, b, ordered):
    events = []
    cur = None
    i = a
    while i < b:
        raw = lines[i]
        c = clean(raw)
        m = TABLE_RE.match(c)
        if m:
            if cur is None:
                fail("line %d: table before any event" % (i + 1))
            i = parse_table(lines, box, cur, i, b, m)
            continue
        if raw.lstrip().startswith("#"):
            if c in PAGE_NOISE:
                i += 1
                continue
            if not HEADING_OK.match(c):
                fail("%s line %d: unexpected heading %r" %
                     (box.unit, i + 1, c))
            sym = fix_symbol(box.unit, c, i + 1)
            if sym not in ordered and (box.unit, sym) not in LIST_ONLY:
                fail("%s line %d: event %r is not in the ordered table" %
                     (box.unit, i + 1, sym))
            if (box.unit, sym) in LIST_ONLY:
                use("LIST_ONLY", (box.unit, sym), i + 1,
                    "%s %s: %s" % (box.unit, sym, LIST_ONLY[(box.unit, sym)]))
            cur = Event(sym, i + 1)
            events.append(cur)
            i += 1
            continue
        if cur is not None and c and not c.isdigit():   # digits: page number
            if cur.tables:
                fail("%s line %d: text after the unit-mask table of %s: %r" %
                     (box.unit, i + 1, cur.sym, c))
            cur.meta.append((i + 1, c))
        i += 1
    return events


def is_stop(lines, j):
    raw = lines[j]
    return raw.lstrip().startswith("#") or TABLE_RE.match(clean(raw))


def parse_table(lines, box, ev, i, b, m):
    """A 'Unit Masks for X' sheet starting at lines[i]; returns the index
    after it."""
    num, title = m.group(1), m.group(2)
    tsym = fix_symbol(box.unit, title, i + 1)
    if tsym != ev.sym:
        fail("%s line %d: table for %r inside event %s" %
             (box.unit, i + 1, title, ev.sym))
    if ev.tables and ev.tables[-1][0] != num:
        fail("%s line %d: second unit-mask table in %s" %
             (box.unit, i + 1, ev.sym))
    sheet = ev.sheets
    ev.sheets += 1
    if not ev.tables:
        ev.tables.append([num, None, []])
    tab = ev.tables[-1]
    rkey = (box.unit, ev.sym, sheet)
    j = i + 1
    if rkey in SHEET_REPLACEMENTS:
        digest, rows = SHEET_REPLACEMENTS[rkey]
        text = []
        while j < b and not is_stop(lines, j):
            text.append(lines[j])
            j += 1
        flat = re.sub(r"\s+", " ", " ".join(text)).strip()
        got = hashlib.sha256(flat.encode("utf-8")).hexdigest()
        if got != digest:
            fail("%s %s sheet %d (line %d): the text transcribed by hand "
                 "in SHEET_REPLACEMENTS has changed (sha256 %s); re-read it" %
                 (box.unit, ev.sym, sheet + 1, i + 1, got))
        use("SHEET_REPLACEMENTS", rkey, i + 1,
            "%s %s Table %s sheet %d: %d rows transcribed by hand" %
            (box.unit, ev.sym, num, sheet + 1, len(rows)))
        for ext, pat, filt, desc in rows:
            tab[2].append(dict(ext=ext, pat=pat, filt=filt, desc=desc,
                               line=i + 1, given=True))
        return j
    # header
    while j < b and not lines[j].strip():
        j += 1
    hdr = [x.strip() for x in lines[j].split("\t")]
    if hdr[:2] != ["Extension", "umask [15:8]"]:
        fail("%s line %d: unit-mask header %r" % (box.unit, j + 1, lines[j]))
    has_filter = hdr[2] == "Filter Dep"
    if tab[1] is not None and tab[1] != has_filter:
        fail("%s line %d: sheets disagree on Filter Dep" % (box.unit, j + 1))
    tab[1] = has_filter
    j += 1
    while j < b:
        raw = lines[j]
        if not raw.strip():
            j += 1
            continue
        if is_stop(lines, j) or "\t" not in raw:
            break
        f = [x.strip() for x in raw.split("\t")]
        while f and f[-1] == "":
            f.pop()
        if len(f) < 2:
            fail("%s line %d: short unit-mask row %r" % (box.unit, j + 1, raw))
        if has_filter:
            f += [""] * (4 - len(f))
            ext, pat, filt, desc = f[0], f[1], f[2], " ".join(f[3:])
        else:
            f += [""] * (3 - len(f))
            ext, pat, filt, desc = f[0], f[1], "", " ".join(f[2:])
        tab[2].append(dict(ext=ext, pat=pat, filt=filt, desc=clean(desc),
                           line=j + 1, given=False))
        j += 1
    return j


# ---------------------------------------------------------------------------
# Event metadata from the text before the first table
# ---------------------------------------------------------------------------

def meta_fields(box, ev):
    # several fields may share a line ("Title: X \u2022 Category: Y")
    text = "\n".join(c for _, c in ev.meta).replace("\u2022", "\n")
    where = "%s %s (line %d)" % (box.unit, ev.sym, ev.line)

    def one(rx, what, required=True):
        vals = set(re.findall(rx, text))
        if len(vals) > 1:
            fail("%s: several %s: %s" % (where, what, sorted(vals)))
        if not vals:
            if required:
                fail("%s: no %s" % (where, what))
            return None
        return vals.pop()

    code = one(r"Event Code:\s*0x([0-9a-fA-F]{2})(?=Extra|[^0-9a-fA-F]|$)",
               "event code")
    mi = one(r"Max\. Inc/Cyc:\s*(\d+)", "max inc")
    ctrs = one(r"Register Restrictions:\s*(\d(?:-\d)?)", "counters")
    ext = one(r"Extra Select Bit:\s*([YN])", "extra select bit", False)
    filt = one(r"Filter Dependency:\s*(\S+)", "filter dependency", False)
    title = one(r"Title:[ \t]*(.*?)[ \t]*(?=Category:|\n|$)", "title", False)
    d = re.search(r"Definition:\s*(.*)", text, re.S)
    definition = ""
    if d:
        body = d.group(1)
        # stop at the first NOTE paragraph
        body = re.split(r"(?:^|\n)(?:NOTE:|Note:)", body)[0]
        definition = re.sub(r"\s+", " ", body).strip()
    return dict(code=int(code, 16), max_inc=int(mi),
                ctr_mask=parse_ctrs(ctrs, where),
                ext=1 if ext == "Y" else 0,
                filt=None if filt in (None, "N") else filt,
                title=(title or "").strip(), definition=definition)


# ---------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------

def sentences(s):
    """Splits prose into sentences (naively, at '. ' before a capital)."""
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(\"])", s.strip())
    out = []
    for p in parts:
        if out and re.search(r"\b(?:e\.g|i\.e|vs|etc)\.$", out[-1]):
            out[-1] += " " + p
        else:
            out.append(p)
    return [p for p in out if p]


def short(s, minlen=40, limit=200):
    """First sentence of s, and the next ones while it is shorter than
    minlen and the result stays under limit."""
    ss = sentences(re.sub(r"\s+", " ", s))
    if not ss:
        return ""
    out = ss[0]
    for p in ss[1:]:
        if len(out) >= minlen or len(out) + 1 + len(p) > limit:
            break
        out += " " + p
    return out


def desc_fix(unit, sym, ext, s, line):
    for old, new in DESC_FIXES.get((unit, sym, ext), []):
        if old not in s:
            fail("%s %s.%s: DESC_FIXES text %r not found" %
                 (unit, sym, ext, old))
        s = s.replace(old, new)
        use("DESC_FIXES", (unit, sym, ext), line,
            "%s %s.%s: %r -> %r" % (unit, sym, ext, old, new))
    for word, (new, why) in DESC_WORD_FIXES.items():
        s2 = re.sub(r"\b%s\b" % word, new, s)
        if s2 != s:
            use("DESC_WORD_FIXES", word, line, "%s %s%s: %s -> %s" %
                (unit, sym, "." + ext if ext else "", word, new))
            s = s2
    return s


def check_text(s, where):
    if re.search(r"[^\x20-\x7e]", s):
        fail("%s: non-ASCII text %r" % (where, s))
    if re.search(r"[$\\{}]", s):
        fail("%s: extraction markup left in %r" % (where, s))


# ---------------------------------------------------------------------------
# Building the catalog
# ---------------------------------------------------------------------------

def norm_filter(unit, sym, ext, printed, line):
    """The Filter Dep text without the extraction's line-break spaces,
    its flags."""
    s = re.sub(r"\s+", "", printed)
    key = (unit, sym, ext, s)
    if key in FILTER_FIXES:
        new, why = FILTER_FIXES[key]
        use("FILTER_FIXES", key, line, "%s %s.%s: %s -> %s (%s)" %
            (unit, sym, ext, s, new, why))
        s = re.sub(r"\s+", "", new)
    items = s.split(",")
    flags = set()
    for it in items:
        m = re.fullmatch(r"([A-Za-z_]+[0-9]?)\[(\d+):(\d+)\]", it)
        if not m or m.group(1) not in FILTER_FLAGS:
            fail("%s %s.%s line %d: filter %r" % (unit, sym, ext, line, it))
        flags.add(FILTER_FLAGS[m.group(1)])
    return ", ".join(items), flags


def decide(unit, sym, field, oval, lval):
    if oval == lval:
        return oval
    key = (unit, sym, field)
    if key not in MISMATCH_DECISIONS:
        fail("%s %s: ordered table says %s=%r, event list %r; no decision" %
             (unit, sym, field, oval, lval))
    o, l, v, why = MISMATCH_DECISIONS[key]
    if (o, l) != (oval, lval):
        fail("%s %s %s: decision for %r/%r, manual has %r/%r" %
             (unit, sym, field, o, l, oval, lval))
    use("MISMATCH_DECISIONS", key, 0, "%s %s %s: ordered %r, list %r -> %r "
        "(%s)" % (unit, sym, field, oval, lval, v, why))
    return v


def pattern(unit, sym, ext, printed, line):
    p = homoglyphs(printed, line, "pattern of %s.%s" % (sym, ext))
    key = (unit, sym, ext)
    if key in PATTERN_FIXES:
        old, new, why = PATTERN_FIXES[key]
        if old != p:
            fail("%s %s.%s: PATTERN_FIXES expects %r, manual has %r" %
                 (unit, sym, ext, old, p))
        use("PATTERN_FIXES", key, line, "%s %s.%s: %s -> %s (%s)" %
            (unit, sym, ext, old, new, why))
        p = new
    if not re.fullmatch(r"b[01x]{8}", p):
        fail("%s %s.%s line %d: pattern %r" % (unit, sym, ext, line, printed))
    return int(p[1:].replace("x", "0"), 2)


def build(text):
    lines = text.split("\n")
    start = find_heading(lines, "2.1 Uncore Per-Socket Performance "
                         "Monitoring Control")
    catalog = []
    counts = {}
    for box in BOXES:
        at_ordered = find_heading(lines, box.ordered, start)
        at_list = find_heading(lines, box.evlist, at_ordered)
        at_end = find_heading(lines, box.end, at_list)
        ordered = parse_ordered(lines, box, at_ordered + 1, at_list)
        evs = parse_list(lines, box, at_list + 1, at_end, ordered)
        seen = set()
        for ev in evs:
            if ev.sym in seen:
                fail("%s: event %s twice in the list" % (box.unit, ev.sym))
            seen.add(ev.sym)
        for sym in ordered:
            if sym not in seen:
                fail("%s: %s in the ordered table only" % (box.unit, sym))
        n0 = len(catalog)
        for ev in evs:
            catalog.extend(entries(box, ev, ordered.get(ev.sym)))
        counts[box.unit] = (len(evs), len(catalog) - n0)
    for name, unit, flag, source, row, desc in FIXED_COUNTERS:
        if row not in text:
            fail("register row %r not found" % row)
        catalog.append(dict(name=name, unit=unit, code=0, umask=0,
                            ctr_mask=0, max_inc=0, max_wide=0, ext=0, occ=0,
                            flags={flag}, filter=None, desc=desc,
                            source=source))
    # every correction must have been used
    tables = dict(SYMBOL_FIXES=SYMBOL_FIXES, EXT_FIXES=EXT_FIXES,
                  PATTERN_FIXES=PATTERN_FIXES, FILTER_FIXES=FILTER_FIXES,
                  INFERRED_FILTERS=INFERRED_FILTERS, DESC_FIXES=DESC_FIXES,
                  DESC_WORD_FIXES=DESC_WORD_FIXES,
                  SHEET_REPLACEMENTS=SHEET_REPLACEMENTS,
                  MISMATCH_DECISIONS=MISMATCH_DECISIONS, LIST_ONLY=LIST_ONLY)
    for tname, table in tables.items():
        for key in table:
            if (tname, key) not in _used:
                fail("%s entry %r no longer applies to the manual" %
                     (tname, key))
    return catalog, counts


def entries(box, ev, orow):
    unit = box.unit
    meta = meta_fields(box, ev)
    if orow is None:            # LIST_ONLY
        orow = dict(code=meta["code"], ctr_mask=meta["ctr_mask"],
                    ext=meta["ext"], max_inc=meta["max_inc"], desc="")
    code = decide(unit, ev.sym, "code", orow["code"], meta["code"])
    ctr_mask = decide(unit, ev.sym, "ctr_mask", orow["ctr_mask"],
                      meta["ctr_mask"])
    max_inc = decide(unit, ev.sym, "max_inc", orow["max_inc"],
                     meta["max_inc"])
    ext = decide(unit, ev.sym, "ev_sel_ext", orow["ext"], meta["ext"])
    if ctr_mask >> box.nctr:
        fail("%s %s: counters 0x%x beyond the box's %d" %
             (unit, ev.sym, ctr_mask, box.nctr))
    title = desc_fix(unit, ev.sym, None, meta["title"] or orow["desc"],
                     ev.line)
    definition = desc_fix(unit, ev.sym, None, meta["definition"], ev.line)
    head = short(definition) if definition else title
    if head and head[-1] not in ".!?":
        head += "."
    ev_filter = None
    if meta["filt"]:
        ev_filter = meta["filt"]
    base = dict(unit=unit, code=code, ctr_mask=ctr_mask,
                max_inc=max_inc if max_inc <= 255 else 0,
                max_wide=max_inc if max_inc > 255 else 0, ext=ext, occ=0)
    if not ev.tables:
        e = dict(base, name=box.prefix + ev.sym, umask=0, flags=set(),
                 filter=None, desc=head or "No description in the manual.",
                 source="%s" % box.list_sec)
        if ev_filter:
            e["filter"], e["flags"] = norm_filter(unit, ev.sym, None,
                                                  ev_filter, ev.line)
        finish(box, ev, e)
        return [e]
    if ev_filter:
        fail("%s %s: event-level filter and unit masks" % (unit, ev.sym))
    num, _, rows = ev.tables[0]
    out = []
    names = set()
    for r in rows:
        ext_name = homoglyphs(r["ext"], r["line"], "unit mask of " + ev.sym)
        k = (unit, ev.sym, ext_name)
        if k in EXT_FIXES:
            new, why = EXT_FIXES[k]
            use("EXT_FIXES", k, r["line"], "%s %s: %r -> %s (%s)" %
                (unit, ev.sym, ext_name, new, why))
            ext_name = new
        if not re.fullmatch(r"[A-Za-z0-9_]+", ext_name):
            fail("%s %s line %d: unit-mask name %r" %
                 (unit, ev.sym, r["line"], ext_name))
        if ext_name in names:
            fail("%s %s: unit mask %s twice" % (unit, ev.sym, ext_name))
        names.add(ext_name)
        umask = pattern(unit, ev.sym, ext_name, r["pat"], r["line"])
        flags, filt = set(), None
        if r["filt"]:
            filt, flags = norm_filter(unit, ev.sym, ext_name, r["filt"],
                                      r["line"])
        ik = (unit, ev.sym, ext_name)
        if ik in INFERRED_FILTERS:
            if filt:
                fail("%s %s.%s: inferred filter but one is printed" % ik)
            text, why = INFERRED_FILTERS[ik]
            use("INFERRED_FILTERS", ik, r["line"], "%s %s.%s: %s (%s)" %
                (unit, ev.sym, ext_name, text, why))
            filt, flags = norm_filter(unit, ev.sym, ext_name, text, r["line"])
        udesc = desc_fix(unit, ev.sym, ext_name, r["desc"], r["line"])
        udesc = short(udesc)
        desc = " ".join(x for x in (head, udesc) if x) or \
            "No description in the manual."
        e = dict(base, name="%s%s.%s" % (box.prefix, ev.sym, ext_name),
                 umask=umask, flags=flags, filter=filt, desc=desc,
                 source="%s Table %s" % (box.list_sec, num))
        finish(box, ev, e)
        out.append(e)
    return out


def finish(box, ev, e):
    where = e["name"]
    if box.unit == "pcu" and e["code"] & 0x80:
        # ev_sel[7]: an occupancy event; umask bits 7:6 are occ_sel
        # (control bits 15:14, Table 2-158), bits 5:0 are reserved.
        if e["umask"] & 0x3f or not e["umask"] >> 6:
            fail("%s: PCU occupancy umask 0x%02x" % (where, e["umask"]))
        e["occ"] = e["umask"] >> 6
    elif box.unit == "pcu" and e["umask"]:
        fail("%s: PCU umask on a non-occupancy event" % where)
    check_text(e["desc"], where)
    if e["filter"]:
        check_text(e["filter"], where)


# ===========================================================================
# Output
# ===========================================================================

def c_str(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def wrap_str(prefix, s, width=79):
    """'\t  ' + prefix + s as C string literals, continued on lines
    indented '\t    ', no line (tab = 8 columns) wider than width minus
    the trailing comma."""
    words = s.split(" ")
    lines, cur = [], ""
    budget = width - 8 - 2 - len(prefix) - 3      # quotes and comma
    for k, w in enumerate(words):
        piece = w + (" " if k < len(words) - 1 else "")
        if cur and len(cur) + len(piece) > budget:
            lines.append(cur)
            cur = ""
            budget = width - 8 - 4 - 3
        cur += piece
    lines.append(cur)
    out = ["\t  " + prefix + c_str(lines[0])]
    out += ["\t    " + c_str(x) for x in lines[1:]]
    return "\n".join(out)


def flags_expr(flags):
    if not flags:
        return None
    return " | ".join(sorted(flags, key=lambda f: EVF[f]))


def render_c(catalog, counts):
    o = []
    w = o.append
    w("/*")
    w(" * events_hsx.c - the hsx (Xeon E5/E7 v3, Haswell-EP) uncore event")
    w(" * catalog: every event and unit mask of the manual's event lists,")
    w(" * then the fixed and free-running counters of its register tables.")
    w(" *")
    w(" * GENERATED by contrib/hsx/extract_events.py from the text of the")
    w(" * Intel Xeon Processor E5 and E7 v3 Family Uncore Performance")
    w(" * Monitoring Reference Manual, 331051-002, June 2015.")
    w(" * Do not edit: change the script (its correction tables) and run")
    w(" *   python3 contrib/hsx/extract_events.py --write")
    w(" * `--check` (tests/scenario/hsx_catalog_check.sh) fails when this")
    w(" * file and the manual disagree.  Every correction the script applies")
    w(" * is listed in doc/hardware-notes.md.")
    w(" *")
    w(" * source is \"<event list section> Table <unit-mask table>\".")
    w(" * Unit-mask patterns are decoded with 'x' (don't care) as 0.  For")
    w(" * the PCU occupancy event (ev_sel bit 7) umask bits 7:6 are occ_sel")
    w(" * and the entry carries both.")
    w(" */")
    w('#include "config.h"')
    w("")
    w('#include "plat/plat.h"')
    w('#include "plat/events_hsx.h"')
    w("")
    w("const struct event hsx_events[] = {")
    last = None
    for e in catalog:
        if e["unit"] != last:
            if last is not None:
                w("")
            sect = e["source"].split()[0]
            if e["ctr_mask"]:
                w("\t/* %s: %s */" % (e["unit"], "section " + sect))
            else:
                w("\t/* %s: %s (not an event select) */" %
                  (e["unit"], "section " + sect))
            last = e["unit"]
        parts = ["\t{ .name = %s, .unit = %s," % (c_str(e["name"]),
                                                  c_str(e["unit"]))]
        enc = "\t  .code = 0x%02x, .umask = 0x%02x" % (e["code"], e["umask"])
        if e["ext"]:
            enc += ", .ev_sel_ext = %d" % e["ext"]
        if e["occ"]:
            enc += ", .occ_sel = %d" % e["occ"]
        enc += ", .ctr_mask = 0x%x," % e["ctr_mask"]
        parts.append(enc)
        tail = "\t  .max_inc = %d," % e["max_inc"]
        if e["max_wide"]:
            tail += " .max_inc_wide = %d," % e["max_wide"]
        fx = flags_expr(e["flags"])
        if fx:
            tail += " .flags = %s," % fx
        parts.append(tail)
        if e["filter"]:
            parts.append(wrap_str(".filter = ", e["filter"]) + ",")
        parts.append(wrap_str(".desc = ", e["desc"]) + ",")
        parts.append("\t  .source = %s }," % c_str(e["source"]))
        w("\n".join(parts))
    w("};")
    w("")
    w("_Static_assert(sizeof(hsx_events) / sizeof(hsx_events[0]) == "
      "HSX_NEVENTS,")
    w('\t       "HSX_NEVENTS in events_hsx.h does not match hsx_events[]");')
    w("")
    w("const size_t hsx_nevents = HSX_NEVENTS;")
    return "\n".join(o) + "\n"


def render_h(catalog, counts):
    o = []
    w = o.append
    w("/*")
    w(" * events_hsx.h - the hsx (Xeon E5/E7 v3) uncore event catalog.")
    w(" *")
    w(" * GENERATED with events_hsx.c by contrib/hsx/extract_events.py; do")
    w(" * not edit.  hsx_events[] lists, in the manual's order, one entry per")
    w(" * event and unit mask of the event lists of sections 2.2 .. 2.11,")
    w(" * then the fixed and free-running counters (ctr_mask 0, EVF_FIXED /")
    w(" * EVF_FREERUN, units ubox_fixed, imc_fixed, pcu_cstate, qpi_link).")
    w(" */")
    w("#ifndef UNCORED_EVENTS_HSX_H")
    w("#define UNCORED_EVENTS_HSX_H")
    w("")
    w("#include <stddef.h>")
    w("")
    w('#include "plat/plat.h"')
    w("")
    w("/* Entries per unit (events in the manual's list / catalog entries):")
    total = 0
    for box in BOXES:
        ne, nc = counts[box.unit]
        total += nc
        w(" *   %-7s %3d events, %4d entries" % (box.unit, ne, nc))
    nfix = len(catalog) - total
    w(" *   fixed and free-running counters: %d" % nfix)
    w(" * A constant so that a platform can be initialised statically;")
    w(" * events_hsx.c asserts that it matches the array. */")
    w("#define HSX_NEVENTS %d" % len(catalog))
    w("")
    w("extern const struct event hsx_events[HSX_NEVENTS];")
    w("extern const size_t hsx_nevents;")
    w("")
    w("#endif")
    return "\n".join(o) + "\n"


FACTS_COLUMNS = ("name", "unit", "code", "umask", "ev_sel_ext", "occ_sel",
                 "ctr_mask", "max_inc", "max_inc_wide", "flags", "filter",
                 "source")


def render_facts(catalog):
    """The catalog's facts, one tab-separated line per entry in the
    catalog's order: numbers in hex as in the C file, flags as their
    value, "-" for no filter; no description (that is the manual's
    text)."""
    o = ["# hsx-manual-facts.tsv - the facts of every entry of the hsx",
         "# event catalog (src/plat/events_hsx.c) as",
         "# contrib/hsx/extract_events.py reads them from the Intel Xeon",
         "# Processor E5 and E7 v3 Family Uncore Performance Monitoring",
         "# Reference Manual, 331051-002, June 2015: names, encodings,",
         "# counters, increments, filter registers and the table each comes",
         "# from; not the manual's text.  GENERATED: do not edit; see",
         "# tests/data/README.",
         "\t".join(FACTS_COLUMNS)]
    for e in catalog:
        o.append("\t".join((
            e["name"], e["unit"], "0x%02x" % e["code"], "0x%02x" % e["umask"],
            "%d" % e["ext"], "%d" % e["occ"], "0x%x" % e["ctr_mask"],
            "%d" % e["max_inc"], "%d" % e["max_wide"],
            "0x%04x" % sum(EVF[f] for f in e["flags"]),
            e["filter"] or "-", e["source"])))
    return "\n".join(o) + "\n"


def write_or_check(outs, write, nentries, source):
    """Writes each (path, text) of outs, or (check) diffs the committed
    file against the text generated from source; returns the exit status
    (1: a file is missing or out of date).  Shared with the snbep
    generator."""
    if write:
        for path, data in outs:
            with open(path, "w", encoding="ascii") as f:
                f.write(data)
        print("extract_events: wrote %d entries" % nentries)
        return 0
    bad = 0
    for path, data in outs:
        try:
            with open(path, encoding="ascii") as f:
                old = f.read()
        except OSError as e:
            print("extract_events: %s" % e, file=sys.stderr)
            bad = 1
            continue
        if old != data:
            bad = 1
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), data.splitlines(True),
                path + " (committed)", path + " (from " + source + ")"))
    if bad:
        print("extract_events: %s is out of date; regenerate with --write" %
              os.path.relpath(outs[0][0], TOP), file=sys.stderr)
    return bad

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manual", default=MANUAL_DEFAULT)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    g.add_argument("--report", action="store_true")
    ap.add_argument("--out-c", default=OUT_C)
    ap.add_argument("--out-h", default=OUT_H)
    ap.add_argument("--out-facts", default=OUT_FACTS)
    args = ap.parse_args()
    try:
        with open(args.manual, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print("extract_events: %s" % e, file=sys.stderr)
        return 2
    try:
        catalog, counts = build(text)
    except ManualError as e:
        print("extract_events: %s: %s" % (args.manual, e), file=sys.stderr)
        return 1
    outs = [(args.out_c, render_c(catalog, counts)),
            (args.out_h, render_h(catalog, counts)),
            (args.out_facts, render_facts(catalog))]
    if args.report:
        for box in BOXES:
            ne, nc = counts[box.unit]
            print("%-7s %3d events %4d entries" % (box.unit, ne, nc))
        print("fixed/free-running %d" % len(FIXED_COUNTERS))
        print("total %d" % len(catalog))
        for line, table, what in sorted(_applied, key=lambda x: (x[1], x[0])):
            print("%-18s line %5d: %s" % (table, line, what))
        return 0
    return write_or_check(outs, args.write, len(catalog), "the manual")


if __name__ == "__main__":
    sys.exit(main())
