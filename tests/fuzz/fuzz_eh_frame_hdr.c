/* Fuzz target: the lookup in a library's .eh_frame_hdr table that names functions without a
 * symbol (symbols/unnamed.c), on a table from a file that may be damaged or hostile. The input
 * is the address looked up (8 bytes, little-endian, as an offset from the table's address),
 * then the table's bytes; the seeds are tables of real libraries. */
#include "symbols/symbols_internal.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint64_t vaddr = 0x1000000;
    uint64_t off = 0, start = 0;

    if (size < 8)
        return 0;
    memcpy(&off, data, 8);
    /* only the table's own bytes: a read past them is a finding */
    size_t len = size - 8;
    uint8_t *hdr = malloc(len ? len : 1);
    if (!hdr)
        abort();
    memcpy(hdr, data + 8, len);
    if (symbolizer_eh_table_start(hdr, len, vaddr, vaddr + off, &start))
        FUZZ_CHECK(start <= vaddr + off);
    symbolizer_eh_table_start(hdr, len, vaddr, vaddr - off, &start);
    free(hdr);
    return 0;
}
