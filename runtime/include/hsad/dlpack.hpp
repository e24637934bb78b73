// DLPack: a Buffer handed to a framework as a DLManagedTensor, and a framework's tensor adopted
// as a Buffer (docs/api.md, "Interoperability"). Needs DLPack's header (Debian: libdlpack-dev).
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <vector>

#include "hsad/buffer.hpp"
#include "hsad/device.hpp"
#include "hsad/export.hpp"

namespace hsad {

// The tensor views `buffer`'s memory as a compact row-major array of `shape` elements of `dtype`;
// the Buffer moves into it and is let go by the tensor's deleter (the consumer calls it when
// done: after the last of its work that reads the memory). Device types: kDLCPU (the cpu agent),
// kDLROCM / kDLROCMHost (rocr, device / pinned memory), kDLCUDA / kDLCUDAHost (cuda), device_id
// the device's ordinal. Throws hsad::Error for an empty Buffer, a dtype of no whole bytes, a
// negative extent, or a shape larger than the Buffer.
HSAD_API DLManagedTensor* to_dlpack(Buffer&& buffer, const std::vector<std::int64_t>& shape, DLDataType dtype);

// A Buffer over the tensor's memory (Device::adopt's checks), which takes the tensor: its deleter
// runs when the Buffer goes, so let the Buffer go only after the last submission that uses it
// has completed. Throws hsad::Error, leaving the tensor to the caller, for a device type that is
// not this backend's (kDLCPU for the cpu agent; kDLROCM, kDLROCMHost for rocr; kDLCUDA,
// kDLCUDAHost, kDLCUDAManaged for cuda), another device's id, strides that are not compact
// row-major (a Buffer is one contiguous range), a dtype of no whole bytes, or no elements.
HSAD_API Buffer from_dlpack(const Device& device, DLManagedTensor* tensor);

}  // namespace hsad
