// What a cooperative dispatch needs on AMD besides the kernel (Batch: LaunchConfig::cooperative).
#if defined(__HIPCC__)
extern "C" __device__ void __ockl_gws_init(unsigned nwm1, unsigned rid);  // AMD's device library

// Where AMD's device library keeps a grid barrier in memory instead of GWS (ROCm 6's ockl, cg.cl,
// on gfx940-gfx942 and from gfx11 on): the block hidden_multigrid_sync_arg points at, laid out as
// the language runtime (CLR) lays out its mg_info, then the one-grid "multi-grid" counter.
struct HsadGridSync {
  unsigned w0, w1;
};
struct HsadGridSyncInfo {
  HsadGridSync* multi_grid;        // mgs: the barrier across grids (one grid here)
  unsigned grid_id, num_grids;     // 0, 1
  unsigned long long prev_sum;     // work-items of the grids before this one: 0
  unsigned long long all_sum;      // work-items of all grids: this grid's
  HsadGridSync grid;               // sgs: the work-groups' counter
  unsigned num_wg;                 // work-groups that meet at the barrier
};

// Run before each cooperative dispatch, as CLR does, behind the packets before it: GWS barrier 0
// set to the number of waves its grid barrier waits for (one per work-group: ockl's grid sync has
// the group's first wave wait), minus one, where the target has GWS (RDNA4 has none: its compiler
// cannot select ds_gws_init); and the memory barrier's block made ready for this grid, for code
// built with a device library that keeps its barrier there.
extern "C" __global__ void hsad_gws_init(unsigned waves_minus_one, HsadGridSyncInfo* info, unsigned long long items) {
#if !defined(__GFX12__)
  __ockl_gws_init(waves_minus_one, 0);
#endif
  if (info) {
    auto* multi_grid = reinterpret_cast<HsadGridSync*>(info + 1);
    *multi_grid = {0, 0};
    info->multi_grid = multi_grid;
    info->grid_id = 0;
    info->num_grids = 1;
    info->prev_sum = 0;
    info->all_sum = items;
    info->grid = {0, 0};
    info->num_wg = waves_minus_one + 1;
  }
}
#endif
