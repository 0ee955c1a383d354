/* Landmark distances for the A* heuristic written into a blob (landmarks.c). Private to the bake. */
#ifndef PTL_LANDMARKS_H
#define PTL_LANDMARKS_H

#include <portolan/bake.h>

/* ptl_bake_landmarks_jobs consuming `blob` (it becomes the navmesh the distances are searched on,
   no copy of it; freed whatever the outcome). */
ptl_status ptl_bake_landmarks_adopt(void* blob, size_t size, uint32_t count, const ptl_job_system* jobs,
                                    const ptl_allocator* alloc, void** out, size_t* out_size, ptl_error* err);
/* ptl_bake_landmarks_adopt on the navmesh of the blob, already made (ptl_cpg_check_blob_keep), which
   it takes and destroys whatever the outcome (with the blob, when the navmesh had adopted it).
   count <= PTL_MAX_LANDMARKS. */
ptl_status ptl_bake_landmarks_nm(ptl_navmesh* nm, uint32_t count, const ptl_job_system* jobs, const ptl_allocator* alloc,
                                 void** out, size_t* out_size, ptl_error* err);
/* ptl_bake_landmarks with the pieces of walkable space as jobs (landmarks.c). */
ptl_status ptl_bake_landmarks_jobs(const void* blob, size_t size, uint32_t count, const ptl_job_system* jobs,
                                   const ptl_allocator* alloc, void** out, size_t* out_size, ptl_error* err);

#endif
