// What a cooperative dispatch needs on AMD besides the kernel (Batch: LaunchConfig::cooperative).
// RDNA4 (gfx12) has no GWS (its compiler cannot select ds_gws_init): no such kernel is built for it,
// and the rocr backend refuses a cooperative dispatch there by name.
#if defined(__HIPCC__) && !defined(__GFX12__)
extern "C" __device__ void __ockl_gws_init(unsigned nwm1, unsigned rid);  // AMD's device library

// Run before each cooperative dispatch on ROCr's cooperative queue, as CLR does: GWS barrier 0
// set to the number of waves its grid barrier waits for (one per work-group: ockl's grid sync
// has the group's first wave wait), minus one.
extern "C" __global__ void hsad_gws_init(unsigned waves_minus_one) { __ockl_gws_init(waves_minus_one, 0); }
#endif
