/* Functions without a symbol (stripped libraries): where the function holding an address
 * starts, from the binary search table of .eh_frame_hdr (PT_GNU_EH_FRAME), which lists the
 * start of every function that has unwind information. libdw finds the unwind entry itself
 * (dwarf_cfi_addrframe) but tells only the address range of one row of rules, not where the
 * entry begins; the table does. Code without an unwind entry that the loader calls through
 * .init_array or .fini_array (the toolchain's frame_dummy and __do_global_dtors_aux) starts
 * at the array's entry. */
#include "base/base.h"
#include "symbols/symbols_internal.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define EH_PE_DATAREL_SDATA4 0x3b /* the table encoding every GNU and LLVM linker writes */
#define EH_PE_UDATA4         0x03

/* The .eh_frame_hdr of elf in memory (the file as libelf maps it), its address in the
 * module's own addresses, and its size. 0 when there is none or it cannot be read. */
static int eh_frame_hdr(Elf *elf, const uint8_t **hdr, uint64_t *vaddr, size_t *len)
{
    size_t nph, size = 0;
    const char *raw = elf_rawfile(elf, &size);

    if (!raw || elf_getphdrnum(elf, &nph) != 0)
        return 0;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
            continue;
        if (ph.p_offset >= size || ph.p_filesz > size - ph.p_offset || ph.p_filesz < 12)
            return 0;
        *hdr = (const uint8_t *)raw + ph.p_offset;
        *vaddr = ph.p_vaddr;
        *len = ph.p_filesz;
        return 1;
    }
    return 0;
}

/* A little-endian 32-bit word (x86-64 files). */
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int symbolizer_eh_table_start(const uint8_t *hdr, size_t len, uint64_t hdr_vaddr, uint64_t v,
                              uint64_t *start)
{
    /* version 1; the table's encoding; the count (udata4) after eh_frame_ptr (sdata4) */
    if (len < 12 || hdr[0] != 1 || hdr[2] != EH_PE_UDATA4 || hdr[3] != EH_PE_DATAREL_SDATA4 ||
        ((hdr[1] & 0x0f) != 0x0b && (hdr[1] & 0x0f) != 0x03)) /* eh_frame_ptr: 4 bytes */
        return 0;
    uint64_t count = le32(hdr + 8);
    if (count == 0 || count > (len - 12) / 8)
        return 0;
    /* entries (start, fde) sorted by start, each relative to the table's header */
    size_t lo = 0, hi = count; /* the last entry with start <= v is in [lo, hi) */
    const uint8_t *table = hdr + 12;
    if (hdr_vaddr + (int64_t)(int32_t)le32(table) > v)
        return 0;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (hdr_vaddr + (int64_t)(int32_t)le32(table + 8 * mid) <= v)
            lo = mid;
        else
            hi = mid;
    }
    *start = hdr_vaddr + (int64_t)(int32_t)le32(table + 8 * lo);
    return 1;
}

int symbolizer_function_start(Dwfl_Module *dm, uint64_t addr, uint64_t *start)
{
    Dwarf_Addr bias = 0, cfi_bias = 0;
    Elf *elf = dwfl_module_getelf(dm, &bias);
    Dwarf_CFI *cfi = dwfl_module_eh_cfi(dm, &cfi_bias);
    Dwarf_Frame *frame = NULL;
    const uint8_t *hdr;
    uint64_t hdr_vaddr;
    size_t len;

    /* only an address that an unwind entry covers is inside a known function */
    if (!elf || !cfi || dwarf_cfi_addrframe(cfi, addr - cfi_bias, &frame) != 0)
        return 0;
    free(frame);
    if (!eh_frame_hdr(elf, &hdr, &hdr_vaddr, &len))
        return 0;
    return symbolizer_eh_table_start(hdr, len, hdr_vaddr, addr - bias, start);
}

#define ARRAY_SECTIONS_MAX 4 /* .preinit_array, .init_array, .fini_array: one each, as a rule */

/* An entry of an array of function addresses: the best start so far (*best) is raised to t
 * when t lies in (floor, v]. */
static void array_candidate(uint64_t t, uint64_t floor, uint64_t v, uint64_t *best)
{
    if (t > floor && t <= v && t > *best)
        *best = t;
}

/* The entry of elf's .preinit_array, .init_array or .fini_array nearest at or below file
 * address v and above floor, in *best (0: none). An entry is the section's word, or, where
 * the linker left it 0 (lld), the addend of its R_X86_64_RELATIVE relocation. */
static void array_entry_best(Elf *elf, uint64_t v, uint64_t floor, uint64_t *best)
{
    uint64_t lo[ARRAY_SECTIONS_MAX], hi[ARRAY_SECTIONS_MAX];
    int narr = 0, zeros = 0;

    *best = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) ||
            (sh.sh_type != SHT_INIT_ARRAY && sh.sh_type != SHT_FINI_ARRAY &&
             sh.sh_type != SHT_PREINIT_ARRAY))
            continue;
        if (narr < ARRAY_SECTIONS_MAX) {
            lo[narr] = sh.sh_addr;
            hi[narr++] = sh.sh_addr + sh.sh_size;
        }
        if (!(d = elf_getdata(scn, NULL)) || !d->d_buf)
            continue;
        for (size_t i = 0; i + 8 <= d->d_size; i += 8) {
            uint64_t t;
            memcpy(&t, (const char *)d->d_buf + i, 8); /* x86-64: little-endian */
            zeros += t == 0;
            array_candidate(t, floor, v, best);
        }
    }
    /* the relocations only where words were left 0: a large library has a million of them */
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && narr && zeros; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
            !(d = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Rela r;
            if (!gelf_getrela(d, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_RELATIVE)
                continue;
            for (int a = 0; a < narr; a++)
                if (r.r_offset >= lo[a] && r.r_offset < hi[a])
                    array_candidate((uint64_t)r.r_addend, floor, v, best);
        }
    }
}

int symbolizer_array_entry_start(Dwfl_Module *dm, uint64_t addr, uint64_t *start)
{
    Dwarf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(dm, &bias);
    const uint8_t *hdr;
    uint64_t hdr_vaddr, floor = 0, best;
    size_t len;

    /* without unwind tables nothing bounds a function: only code between two that have them */
    if (!elf || !eh_frame_hdr(elf, &hdr, &hdr_vaddr, &len))
        return 0;
    if (!symbolizer_eh_table_start(hdr, len, hdr_vaddr, addr - bias, &floor))
        floor = 0;
    array_entry_best(elf, addr - bias, floor, &best);
    if (!best)
        return 0;
    *start = best;
    return 1;
}

const char *symbolizer_section_name(Dwfl_Module *dm, uint64_t addr)
{
    Dwarf_Addr off = addr, scn_bias = 0, bias = 0;
    Elf *elf = dwfl_module_getelf(dm, &bias);
    Elf_Scn *scn = elf ? dwfl_module_address_section(dm, &off, &scn_bias) : NULL;
    GElf_Shdr sh;
    size_t shstrndx;

    if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
        elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    return name && *name ? name : NULL;
}
