/* The open field's column index (col_index.h, ptl_vx_col_index): a base per block of columns and a
   narrow offset per column, built in column order.

   The width of the offsets is the smallest that holds every one of them. The assembly of a tiled
   bake (tiles.c) pushes the world's columns as the rows of tiles arrive, before the later rows'
   spans exist, so the index starts at 1 byte and widens when an offset first needs more (at most
   twice per field; none of the meshes in ../shared/data needs more than 1 byte): the entries
   pushed so far are converted in place after growing the array, which keeps the result the same
   as choosing the width from all the columns beforehand. */
#include <string.h>

#include "../../runtime/internal.h"
#include "col_index.h"

static size_t base_entries(uint32_t cols) {
    return (size_t)cols / PTL_VX_COL_BLOCK + 1;
}

ptl_status ptl_col_index_init(ptl_vx_col_index* x, uint32_t cols, uint32_t width, const ptl_allocator* a) {
    memset(x, 0, sizeof *x);
    if (width != 1 && width != 4) return PTL_ERR_INVALID_ARG;
    x->cols = cols, x->width = width;
    x->off.any = ptl_mem_alloc(a, ((size_t)cols + 1) * width);
    if (width != 4) x->base = ptl_mem_alloc(a, base_entries(cols) * sizeof *x->base);
    if (!x->off.any || (width != 4 && !x->base)) {
        ptl_col_index_free(x, a);
        return PTL_ERR_NO_MEMORY;
    }
    return PTL_OK;
}

void ptl_col_index_free(ptl_vx_col_index* x, const ptl_allocator* a) {
    if (x->off.any) ptl_mem_free(a, x->off.any, ((size_t)x->cols + 1) * x->width);
    if (x->base) ptl_mem_free(a, x->base, base_entries(x->cols) * sizeof *x->base);
    memset(x, 0, sizeof *x);
}

bool ptl_col_index_push_wide(ptl_vx_col_index* x, uint32_t start, const ptl_allocator* a) {
    const uint32_t c = x->filled;
    /* ptl_col_index_push set the block's base (a block's first column has offset 0, which
       always fits): this column is inside its block */
    const uint32_t o = start - x->base[c / PTL_VX_COL_BLOCK];
    const uint32_t width = o <= 0xffffu ? 2 : 4;
    const size_t n = (size_t)x->cols + 1;
    void* p = ptl_mem_realloc(a, x->off.any, n * x->width, n * width);
    if (!p) return false;
    /* In place, from the last entry down: entry i of the new width starts at or after entry i of
       the old one, so it overwrites only entries converted already (and its own, read first). */
    if (width == 2) {
        uint16_t* dst = p;
        const uint8_t* src = p;
        for (uint32_t i = c; i-- > 0;) dst[i] = src[i];
        dst[c] = (uint16_t)o;
    } else {
        uint32_t* dst = p;
        if (x->width == 1) {
            const uint8_t* src = p;
            for (uint32_t i = c; i-- > 0;) dst[i] = x->base[i / PTL_VX_COL_BLOCK] + src[i];
        } else {
            const uint16_t* src = p;
            for (uint32_t i = c; i-- > 0;) dst[i] = x->base[i / PTL_VX_COL_BLOCK] + src[i];
        }
        dst[c] = start;
        ptl_mem_free(a, x->base, base_entries(x->cols) * sizeof *x->base);
        x->base = NULL;
    }
    x->off.any = p, x->width = width;
    x->filled = c + 1;
    return true;
}
