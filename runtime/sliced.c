/* Sliced paths (issue 19): the exact search of ptl_query_find_path spread over calls, for a game's
   frame budget (Detour's initSlicedFindPath / updateSlicedFindPath / finalizeSlicedFindPath). The
   interval search keeps its state in the query between slices (search.c, q->run); the result is
   written by the same code as the one-shot path's, so it is the same path, bit for bit. */
#include <string.h>

#include "query_internal.h"

enum { SLICED_NONE = 0, SLICED_WHOLE = 1, SLICED_SEARCH = 2 };

/* Is the sliced search begun and not ended by another query (its stamp unchanged)? */
static bool live(const ptl_query* q) {
    const ptl_search_run* run = &q->run;
    if (run->sliced == SLICED_NONE) return false;
    if (run->sliced == SLICED_SEARCH && run->state != PTL_RUN_NONE && run->stamp != q->stamp) return false;
    return true;
}

ptl_status ptl_query_path_begin(ptl_query* q, const ptl_path_request* req) {
    if (!q) return PTL_ERR_INVALID_ARG;
    ptl_search_run* run = &q->run;
    run->sliced = SLICED_NONE;
    run->state = PTL_RUN_NONE;
    ptl_status st = ptl_query_path_check(q, req, NULL);
    if (st < 0) return st;
    run->req = *req;
    run->begin_status = PTL_OK;
    run->sliced = SLICED_WHOLE;
    /* located in place (a point's cell list may point into itself) */
    st = ptl_query_locate_point(q, req->start, req->extents, &run->sp);
    if (st >= 0) st = ptl_query_locate_point(q, req->goal, req->extents, &run->gp);
    if (st < 0) {
        run->begin_status = st; /* finish reports it, as ptl_query_find_path would */
        return st;
    }
    /* spread: the exact interval search (not a disc's, not the corridor's, which weighted areas
       also take; not one the hub labels answer at once) */
    if (req->radius > 0 || req->mode != PTL_PATH_EXACT || q->weighted || (q->use_hubs && !q->any_off)) return PTL_OK;
    st = ptl_query_search_begin(q, &run->sp, &run->gp);
    if (st == PTL_IN_PROGRESS) run->sliced = SLICED_SEARCH;
    return PTL_OK;
}

ptl_status ptl_query_path_step(ptl_query* q, uint32_t max_expansions, uint32_t* expansions_done) {
    if (expansions_done) *expansions_done = 0;
    if (!q || !live(q)) return PTL_ERR_INVALID_ARG;
    ptl_search_run* run = &q->run;
    if (run->sliced != SLICED_SEARCH || run->state != PTL_RUN_GOING) return PTL_OK;
    const uint64_t before = run->expansions;
    ptl_status st = ptl_query_search_step(q, max_expansions);
    if (expansions_done) *expansions_done = (uint32_t)(run->expansions - before);
    return st == PTL_IN_PROGRESS ? PTL_IN_PROGRESS : PTL_OK;
}

ptl_status ptl_query_path_finish(ptl_query* q, ptl_path_result* res) {
    if (!res) return PTL_ERR_INVALID_ARG;
    ptl_search_run* run = q ? &q->run : NULL;
    const bool ok = q && live(q);
    ptl_status st = ptl_query_path_check(q, ok ? &run->req : NULL, res);
    if (!ok || st < 0) {
        if (run) run->sliced = SLICED_NONE, run->state = PTL_RUN_NONE;
        return st < 0 ? st : PTL_ERR_INVALID_ARG;
    }
    const uint8_t sliced = run->sliced;
    run->sliced = SLICED_NONE;
    if (run->begin_status < 0) {
        if (run->begin_status == PTL_ERR_NOT_FOUND && run->sp.cell != PTL_NONE) res->start_cell = run->sp.cell;
        return run->begin_status;
    }
    if (sliced == SLICED_SEARCH && run->state == PTL_RUN_GOING) {
        /* not done yet: the rest now */
        st = ptl_query_search_step(q, UINT64_MAX);
        if (st == PTL_IN_PROGRESS) return PTL_ERR_INTERNAL;
    }
    /* the path from the located ends, as ptl_query_find_path writes it (the search's answer taken
       from q->run when it ran here) */
    ptl_qpoint sp, gp;
    ptl_qpoint_copy(&sp, &run->sp);
    ptl_qpoint_copy(&gp, &run->gp);
    const ptl_path_request req = run->req;
    st = ptl_query_path_located(q, &req, &sp, &gp, res);
    run->state = PTL_RUN_NONE;
    return st;
}
