"""listing.py: the student's own assembly read from an assembler listing (pure text: the compiled
cases are test_allowlist.py's)."""

from __future__ import annotations

from tilelab.run import listing

LAST = '\t.section\t.note.GNU-stack,"",@progbits'


def _listing(*lines: str) -> str:
    """A listing as `as -aln` writes it: the line number, room for the address and bytes, a tab."""
    return "".join(f"{n:4d}              \t{text}\n" for n, text in enumerate(lines, 1))


def test_the_compilers_own_output_holds_none():
    assert listing.own_assembly(_listing('\t.file\t"m.cpp"', "\t.text", "_Z1fv:", "\tret", LAST)) == []


def test_each_asm_region_is_named_by_its_first_line():
    text = _listing("\t.text", "#APP", '# 3 "m.cu" 1', "\tmovss (%rdi), %xmm0", "#NO_APP", "_Z1fv:", "#APP",
                    ".incbin \"x\"", "#NO_APP", LAST)
    assert listing.own_assembly(text) == ["movss (%rdi), %xmm0", '.incbin "x"']


def test_a_listing_that_stops_or_skips_lines_is_assembly():
    gap = _listing("\t.text", "\tret", LAST).replace("   3 ", "   9 ")
    assert listing.own_assembly(gap) == ["the listing stops at line 2 (.nolist)"]
    assert listing.own_assembly(_listing("\t.text", "\tret")) == ["the listing stops at line 2 (.nolist)"]


def test_nvccs_fatbinary_is_its_own_but_code_after_its_shape_is_not():
    fatbin = ["#APP", '\t.section .nv_fatbin, "a"', ".align 8", "fatbinData:", ".quad 0x1,0x2", ".text"]
    ok = _listing(*fatbin, "\t.section\t.rodata", ".LC0:", "#NO_APP", LAST)
    assert listing.own_assembly(ok) == []
    forged = _listing(*fatbin[:4], "\tmovss (%rdi), %xmm0", ".text", "#NO_APP", LAST)
    assert listing.own_assembly(forged)[0].startswith('.section .nv_fatbin, "a" / .align 8')


def test_clangs_file_scope_marker_is_read_as_the_compilers_app_line():
    text = _listing("\t.text", "                                        # Start of file scope inline assembly",
                    ".globl tl_load", "tl_load: ret", "                                        # End of file scope inline assembly",
                    '\t.section\t".note.GNU-stack","",@progbits', "\t.addrsig")
    assert listing.own_assembly(text) == [".globl tl_load / tl_load: ret"]


def test_the_cxx_librarys_iostream_line_is_its_own_but_not_what_follows_it():
    """libstdc++ 13+'s <iostream> puts `.globl _ZSt21ios_base_library_initv` at file scope: every file
    including it was refused on g++ 13 and 14 (the GPU machine's 01-known-good-idioms, 2026-11-29),
    in one region with nvcc's fatbinary. Seen failing before: the region named by that line."""
    fatbin = ['\t.section .nv_fatbin, "a"', ".align 8", "fatbinData:", ".quad 0x1,0x2", ".text"]
    ios = "\t.globl _ZSt21ios_base_library_initv"
    assert listing.own_assembly(_listing("#APP", ios, *fatbin, "#NO_APP", LAST)) == []
    assert listing.own_assembly(_listing("#APP", ios, "#NO_APP", LAST)) == []
    assert listing.own_assembly(_listing("#APP", ios, ".incbin \"x\"", "#NO_APP", LAST)) == ['.incbin "x"']


def test_an_asm_whose_text_is_not_listed_is_the_students():
    """A region with no line of text (its text hidden by `.nolist`) stays a finding of its own, named
    first (CI, 2026-11-29: the library-line rule had let an empty region through)."""
    assert listing.own_assembly(_listing("#APP", "#NO_APP", LAST)) == ["(an asm whose text is not listed)"]


def test_code_only_in_the_compilers_text_sections():
    """A function placed in a section the rule lets a student name (the emulator's device variables,
    nvcc's fatbinary) makes it executable, and a const byte array beside it machine code: refused.
    Seen failing before: no function read the sections' flags."""
    text = _listing('\t.section\ttlemu_device_vars,"ax",@progbits', "_Z1fi:", "\tret",
                    '\t.section\t.text._Z1gv,"axG",@progbits,_Z1gv,comdat', '\t.section\t.text.startup,"ax",@progbits',
                    '\t.section\t.rodata', '\t.section\t.nvFatBinSegment,"aw"', LAST)
    assert listing.foreign_code_sections(text) == ["tlemu_device_vars"]
