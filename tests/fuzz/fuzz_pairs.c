/* Pairs CSV reader (ptl_pairs_parse): every item it returns is finite. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ptl_query_set qs;
    ptl_error err = {0};
    if (ptl_pairs_parse((const char*)data, size, "fuzz.csv", NULL, &qs, &err) < 0) return 0;
    for (uint32_t i = 0; i < qs.count; ++i)
        for (int k = 0; k < 3; ++k)
            if (!isfinite(qs.items[i].start[k]) || !isfinite(qs.items[i].goal[k]))
                fuzz_fail("pairs: item %u has a non-finite point", i);
    ptl_query_set_free(&qs);
    return 0;
}
