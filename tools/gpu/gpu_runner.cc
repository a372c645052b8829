#include "tools/gpu/gpu_runner.h"

#include <cuda.h>
#include <dlfcn.h>

#include <array>
#include <cctype>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/launch/buffer_fill.h"
#include "sim/launch/launch_spec.h"

namespace warpcheck::gpu {
namespace {

// The driver entry points we use, resolved from libcuda.so.1 by the names cuda.h maps
// them to (e.g. cuMemAlloc -> cuMemAlloc_v2), so the types and the symbols always agree.
#define WARPCHECK_CU_STR2(x) #x
#define WARPCHECK_CU_STR(x) WARPCHECK_CU_STR2(x)
// clang-format off
#define WARPCHECK_CU_FUNCTIONS(X) \
  X(cuInit) \
  X(cuDriverGetVersion) \
  X(cuDeviceGetCount) \
  X(cuDeviceGet) \
  X(cuDeviceGetName) \
  X(cuDeviceGetAttribute) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuDevicePrimaryCtxReset) \
  X(cuCtxSetCurrent) \
  X(cuCtxSynchronize) \
  X(cuGetErrorName) \
  X(cuGetErrorString) \
  X(cuModuleLoadDataEx) \
  X(cuModuleUnload) \
  X(cuModuleGetFunction) \
  X(cuFuncSetAttribute) \
  X(cuFuncGetAttribute) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuMemcpyHtoD) \
  X(cuMemcpyDtoH) \
  X(cuMemsetD8) \
  X(cuLaunchKernel) \
  X(cuEventCreate) \
  X(cuEventRecord) \
  X(cuEventSynchronize) \
  X(cuEventElapsedTime) \
  X(cuEventDestroy)
// clang-format on

struct Driver {
#define WARPCHECK_CU_MEMBER(fn) decltype(&::fn) fn = nullptr;
  WARPCHECK_CU_FUNCTIONS(WARPCHECK_CU_MEMBER)
#undef WARPCHECK_CU_MEMBER
  // Optional (CUDA 12.4+): used to check parameter sizes when present.
  decltype(&::cuFuncGetParamInfo) cuFuncGetParamInfo = nullptr;
};

// Process-wide state: the driver, device 0 and its primary context (retained once and
// kept, so consecutive runs do not pay for context creation).
struct Session {
  absl::Status status = absl::OkStatus();
  Driver cu;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string device_name;
  // Set by a device fault (a "sticky" CUDA error): the driver keeps failing in this
  // process afterwards, even after cuDevicePrimaryCtxReset (seen on an H200, driver 580),
  // so every later run is refused with this reason.
  std::string lost;
};

Session& GetSession() {
  static Session* session = [] {
    auto* s = new Session;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      s->status = absl::UnavailableError(absl::StrCat(
          "no CUDA driver: cannot load libcuda.so.1 (", why ? why : "?", ")"));
      return s;
    }
#define WARPCHECK_CU_LOAD(fn)                                                     \
  s->cu.fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib, WARPCHECK_CU_STR(fn))); \
  if (s->cu.fn == nullptr) {                                                      \
    s->status = absl::UnavailableError(absl::StrCat(                              \
        "CUDA driver too old: libcuda.so.1 has no ", WARPCHECK_CU_STR(fn)));      \
    return s;                                                                     \
  }
    WARPCHECK_CU_FUNCTIONS(WARPCHECK_CU_LOAD)
#undef WARPCHECK_CU_LOAD
    s->cu.cuFuncGetParamInfo = reinterpret_cast<decltype(&::cuFuncGetParamInfo)>(
        dlsym(lib, "cuFuncGetParamInfo"));
    CUresult r = s->cu.cuInit(0);
    if (r != CUDA_SUCCESS) {
      const char* name = nullptr;
      s->cu.cuGetErrorName(r, &name);
      s->status =
          absl::UnavailableError(absl::StrCat("cuInit failed: ", name ? name : "?"));
      return s;
    }
    int count = 0;
    if (s->cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
      s->status = absl::UnavailableError("no CUDA device");
      return s;
    }
    if (s->cu.cuDeviceGet(&s->device, 0) != CUDA_SUCCESS) {
      s->status = absl::UnavailableError("cuDeviceGet(0) failed");
      return s;
    }
    char name[256] = {};
    s->cu.cuDeviceGetName(name, sizeof(name) - 1, s->device);
    int major = 0, minor = 0, driver = 0;
    s->cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                               s->device);
    s->cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                               s->device);
    s->cu.cuDriverGetVersion(&driver);
    s->device_name = absl::StrFormat("%s (sm_%d%d), driver %d.%d", name, major, minor,
                                     driver / 1000, (driver % 1000) / 10);
    return s;
  }();
  return *session;
}

std::string ErrorText(const Driver& cu, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  cu.cuGetErrorName(r, &name);
  cu.cuGetErrorString(r, &text);
  return absl::StrCat(name ? name : absl::StrCat("CUresult ", static_cast<int>(r)), ": ",
                      text ? text : "?");
}

// Makes the session's context current, creating it when needed.
absl::Status EnsureContext(Session& s) {
  if (s.context == nullptr) {
    CUresult r = s.cu.cuDevicePrimaryCtxRetain(&s.context, s.device);
    if (r != CUDA_SUCCESS) {
      s.context = nullptr;
      return absl::UnavailableError(
          absl::StrCat("cuDevicePrimaryCtxRetain: ", ErrorText(s.cu, r)));
    }
  }
  CUresult r = s.cu.cuCtxSetCurrent(s.context);
  if (r != CUDA_SUCCESS)
    return absl::UnavailableError(absl::StrCat("cuCtxSetCurrent: ", ErrorText(s.cu, r)));
  return absl::OkStatus();
}

// After a fault on the device the context is unusable: release it and remember why.
void LoseContext(Session& s, const std::string& why) {
  if (s.context != nullptr) s.cu.cuDevicePrimaryCtxRelease(s.device);
  s.context = nullptr;
  s.cu.cuDevicePrimaryCtxReset(s.device);
  s.lost = why;
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  absl::StatusOr<std::string> text = sim::base::ReadFile(path);
  if (!text.ok()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return text;
}

// The .entry names in PTX text (for specs that leave `kernel` out).
std::vector<std::string> EntryNames(const std::string& ptx) {
  std::vector<std::string> names;
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string::npos) {
    pos += 6;
    if (pos < ptx.size() && ptx[pos] != ' ' && ptx[pos] != '\t') continue;
    size_t start = ptx.find_first_not_of(" \t\r\n", pos);
    if (start == std::string::npos) break;
    size_t end = start;
    while (end < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[end])) ||
                                ptx[end] == '_' || ptx[end] == '$')) {
      ++end;
    }
    if (end > start) names.push_back(ptx.substr(start, end - start));
  }
  return names;
}

constexpr uint64_t kGuardBytes = 256;  // keeps the buffer itself 256-byte aligned
constexpr uint8_t kGuardByte = 0x5A;

struct DeviceBuffer {
  std::string name;
  CUdeviceptr base = 0;  // allocation start (guard band)
  uint64_t size = 0;     // the buffer's bytes, between the guards
};

uint64_t ParamSize(const Param& p) { return sim::launch::EncodeParam(p, 0).size; }

std::string ParamKind(const Param& p) {
  switch (p.kind_case()) {
    case Param::kBuffer:
      return absl::StrCat("buffer \"", p.buffer().name(), "\"");
    case Param::kU32:
      return "u32";
    case Param::kU64:
      return "u64";
    case Param::kS32:
      return "s32";
    case Param::kS64:
      return "s64";
    case Param::kF32:
      return "f32";
    case Param::kNullPtr:
      return "null_ptr";
    case Param::KIND_NOT_SET:
      break;
  }
  return "?";
}

// The PTX text of the spec's module and the kernel to run in it.
struct KernelSource {
  std::string ptx_path;
  std::string ptx;
  std::string kernel;
};

absl::StatusOr<KernelSource> ReadKernelSource(const LaunchSpec& spec,
                                              const std::string& spec_dir) {
  KernelSource k;
  k.ptx_path = spec.ptx_file();
  if (!k.ptx_path.empty() && k.ptx_path[0] != '/' && !spec_dir.empty()) {
    k.ptx_path = absl::StrCat(spec_dir, "/", k.ptx_path);
  }
  ASSIGN_OR_RETURN(k.ptx, ReadText(k.ptx_path));
  k.kernel = spec.kernel();
  if (k.kernel.empty()) {
    std::vector<std::string> entries = EntryNames(k.ptx);
    if (entries.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(k.ptx_path, ": `kernel` is not set and the module has ",
                       entries.size(), " .entry"));
    }
    k.kernel = entries[0];
  }
  return k;
}

// The initial bytes of every buffer param, by param index (empty for scalars).
absl::StatusOr<std::vector<std::vector<uint8_t>>> FillBuffers(
    const LaunchSpec& spec, const std::string& spec_dir) {
  std::vector<std::vector<uint8_t>> initial(spec.param_size());
  for (int i = 0; i < spec.param_size(); ++i) {
    if (spec.param(i).kind_case() != Param::kBuffer) continue;
    ASSIGN_OR_RETURN(initial[i], sim::launch::FillBuffer(spec.param(i).buffer(), spec_dir));
  }
  return initial;
}

// One launch on the device and the handles it holds (module, buffers, events), each
// step a method, in the order RunOnGpu calls them. The handles are released when the
// run ends, unless a device fault lost the context (they must not be used again; the
// context is reset instead).
class DeviceRun {
 public:
  DeviceRun(Session& s, const LaunchSpec& spec, const KernelSource& source)
      : s_(s), cu_(s.cu), spec_(spec), source_(source) {}
  DeviceRun(const DeviceRun&) = delete;
  DeviceRun& operator=(const DeviceRun&) = delete;
  ~DeviceRun();

  // The module, with the JIT's error log for PTX the driver rejects, and the kernel.
  absl::Status LoadKernel();
  // Parameters must match the .entry one for one, in size (when the driver can tell).
  absl::Status CheckParams() const;
  // Opts in to more than 48 KiB of dynamic shared memory when the spec asks for it.
  absl::Status AllowDynamicShared() const;
  // Buffers: [guard | bytes | guard], guards 0x5A, bytes from the fill; and the
  // kernel's argument values.
  absl::Status Upload(const std::vector<std::vector<uint8_t>>& initial);
  // Launches once, timed with events. Ensures: ok == false with a "cuda_error" fault
  // when the kernel failed on the device (the context is then lost).
  absl::Status Launch(GpuRunResult& result);
  // Copies the buffers back (guards included) and checks the guards.
  absl::Status ReadBack(GpuRunResult& result) const;

  // Timing mode (TimeOnGpu). Sets the value of u32 parameter `index`.
  void SetU32(int index, uint32_t value);
  // Refills every buffer and its guards, as Upload did (before the check launch).
  absl::Status Refill(const std::vector<std::vector<uint8_t>>& initial);
  // One launch, synchronised; with `ms` set, timed alone between two events. A refused
  // launch is FailedPrecondition (the context stays usable); a fault on the device gives
  // a "cuda_error" fault in `result` and loses the context.
  absl::Status LaunchAndWait(GpuRunResult& result, double* ms);
  // The context is gone (another run's fault): release nothing in the destructor.
  void Abandon() { abandoned_ = true; }
  // Timing mode: every buffer parameter addresses `other`'s buffer of the same name and
  // size instead of its own, so that the kernels timed side by side read and write the
  // same memory. Timed on buffers of its own, the same kernel measured up to 1.2x apart
  // from itself: a kernel that moves nothing and whose 528 CTAs all write one `out` (its
  // time is that contention) measured 1.21x against a copy of itself on line 497 and
  // 0.92x on line 539, in two calls (corpus/plan/h200/exp_2026-12-03b/aa_*). Requires:
  // Upload done on both. Returns false, changing nothing, unless each of this run's
  // buffers has such a twin. UseOwnBuffers() goes back (before the check launch).
  bool BorrowBuffers(const DeviceRun& other);
  void UseOwnBuffers() { absl::c_copy(own_values_, values_.begin()); }

 private:
  Session& s_;
  const Driver& cu_;
  const LaunchSpec& spec_;
  const KernelSource& source_;
  // Why the context was lost by a device fault ("" while it is usable).
  std::string lost_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  std::vector<DeviceBuffer> buffers_;
  std::vector<std::array<uint8_t, 8>> values_;
  std::vector<std::array<uint8_t, 8>> own_values_;  // values_ as Upload set them
  std::vector<void*> args_;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
  bool abandoned_ = false;
};

DeviceRun::~DeviceRun() {
  if (!lost_.empty()) {
    LoseContext(s_, lost_);
    return;
  }
  if (abandoned_) return;
  if (start_ != nullptr) cu_.cuEventDestroy(start_);
  if (stop_ != nullptr) cu_.cuEventDestroy(stop_);
  for (const DeviceBuffer& b : buffers_) cu_.cuMemFree(b.base);
  if (module_ != nullptr) cu_.cuModuleUnload(module_);
}

absl::Status DeviceRun::LoadKernel() {
  std::vector<char> log(16384, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log.data(),
                  reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
  CUmodule module = nullptr;
  CUresult r = cu_.cuModuleLoadDataEx(&module, source_.ptx.c_str(), 2, opts, vals);
  if (r != CUDA_SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_.ptx_path, ": the driver rejects the PTX: ",
                     ErrorText(cu_, r), "\n", log.data()));
  }
  module_ = module;
  if (CUresult r = cu_.cuModuleGetFunction(&function_, module_, source_.kernel.c_str());
      r != CUDA_SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_.ptx_path, ": no kernel \"", source_.kernel, "\": ", ErrorText(cu_, r)));
  }
  return absl::OkStatus();
}

absl::Status DeviceRun::CheckParams() const {
  if (cu_.cuFuncGetParamInfo == nullptr) return absl::OkStatus();
  const std::string& path = source_.ptx_path;
  const std::string& kernel = source_.kernel;
  for (int i = 0; i <= spec_.param_size(); ++i) {
    size_t offset = 0, size = 0;
    CUresult r = cu_.cuFuncGetParamInfo(function_, i, &offset, &size);
    if (i == spec_.param_size()) {
      if (r == CUDA_SUCCESS) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": kernel ", kernel, " has more than the spec's ",
                         spec_.param_size(), " parameters"));
      }
      break;
    }
    if (r != CUDA_SUCCESS) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": kernel ", kernel, " has ",
                                                     i, " parameters, the spec gives ",
                                                     spec_.param_size()));
    }
    if (size != ParamSize(spec_.param(i))) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": parameter ", i, " of ", kernel, " is ", size,
                       " bytes; the spec passes ", ParamKind(spec_.param(i)), " (",
                       ParamSize(spec_.param(i)), " bytes)"));
    }
  }
  return absl::OkStatus();
}

absl::Status DeviceRun::AllowDynamicShared() const {
  if (spec_.dynamic_shared_bytes() <= 48 * 1024) return absl::OkStatus();
  CUresult r =
      cu_.cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(spec_.dynamic_shared_bytes()));
  if (r != CUDA_SUCCESS) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot allow ", spec_.dynamic_shared_bytes(),
                     " bytes of dynamic shared memory: ", ErrorText(cu_, r)));
  }
  return absl::OkStatus();
}

absl::Status DeviceRun::Upload(const std::vector<std::vector<uint8_t>>& initial) {
  values_.assign(spec_.param_size(), {});
  args_.assign(spec_.param_size(), nullptr);
  for (int i = 0; i < spec_.param_size(); ++i) {
    const Param& p = spec_.param(i);
    uint64_t address = 0;
    if (p.kind_case() == Param::kBuffer) {
      DeviceBuffer b;
      b.name = p.buffer().name();
      b.size = initial[i].size();
      uint64_t total = b.size + 2 * kGuardBytes;
      if (CUresult r = cu_.cuMemAlloc(&b.base, total); r != CUDA_SUCCESS) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "cuMemAlloc(", total, ") for buffer \"", b.name, "\": ", ErrorText(cu_, r)));
      }
      buffers_.push_back(b);
      CUresult r = cu_.cuMemsetD8(b.base, kGuardByte, total);
      if (r == CUDA_SUCCESS && b.size > 0) {
        r = cu_.cuMemcpyHtoD(b.base + kGuardBytes, initial[i].data(), b.size);
      }
      if (r != CUDA_SUCCESS) {
        return absl::InternalError(
            absl::StrCat("filling buffer \"", b.name, "\": ", ErrorText(cu_, r)));
      }
      address = b.base + kGuardBytes;
    }
    const uint64_t bits = sim::launch::EncodeParam(p, address).bits;
    std::memcpy(values_[i].data(), &bits, sizeof(bits));
    args_[i] = values_[i].data();
  }
  own_values_ = values_;
  return absl::OkStatus();
}

bool DeviceRun::BorrowBuffers(const DeviceRun& other) {
  std::vector<std::array<uint8_t, 8>> values = own_values_;
  size_t own = 0;  // buffers_ are the buffer parameters, in order
  for (int i = 0; i < spec_.param_size(); ++i) {
    const Param& p = spec_.param(i);
    if (p.kind_case() != Param::kBuffer) continue;
    const DeviceBuffer& mine = buffers_[own++];
    auto twin = absl::c_find_if(other.buffers_, [&](const DeviceBuffer& b) {
      return b.name == mine.name && b.size == mine.size;
    });
    if (twin == other.buffers_.end()) return false;
    const uint64_t bits = sim::launch::EncodeParam(p, twin->base + kGuardBytes).bits;
    std::memcpy(values[static_cast<size_t>(i)].data(), &bits, sizeof(bits));
  }
  // In place: args_ points into values_.
  absl::c_copy(values, values_.begin());
  return true;
}

absl::Status DeviceRun::Launch(GpuRunResult& result) {
  if (cu_.cuEventCreate(&start_, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      cu_.cuEventCreate(&stop_, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
    return absl::InternalError("cuEventCreate failed");
  }
  cu_.cuEventRecord(start_, nullptr);
  CUresult launch =
      cu_.cuLaunchKernel(function_, spec_.grid().x(), sim::launch::DimOr1(spec_.grid().y()),
                         sim::launch::DimOr1(spec_.grid().z()), spec_.block().x(),
                         sim::launch::DimOr1(spec_.block().y()), sim::launch::DimOr1(spec_.block().z()),
                         spec_.dynamic_shared_bytes(), nullptr, args_.data(), nullptr);
  if (launch != CUDA_SUCCESS) {
    // Refused before running (too many threads or registers, too much shared memory):
    // not sticky, the context stays usable.
    return absl::FailedPreconditionError(absl::StrCat(
        "cuLaunchKernel(", source_.kernel, ", grid ", spec_.grid().x(), ", block ",
        spec_.block().x(), ", dynamic shared ", spec_.dynamic_shared_bytes(),
        "): ", ErrorText(cu_, launch)));
  }
  cu_.cuEventRecord(stop_, nullptr);
  CUresult done = cu_.cuEventSynchronize(stop_);
  if (done == CUDA_SUCCESS) done = cu_.cuCtxSynchronize();
  if (done != CUDA_SUCCESS) {
    // A fault on the device poisons the context: report it and start afresh next time.
    result.fault_kind = "cuda_error";
    result.fault = ErrorText(cu_, done);
    result.ok = false;
    lost_ = result.fault;
    return absl::OkStatus();
  }
  float ms = 0;
  if (cu_.cuEventElapsedTime(&ms, start_, stop_) == CUDA_SUCCESS) result.kernel_ms = ms;
  return absl::OkStatus();
}

absl::Status DeviceRun::ReadBack(GpuRunResult& result) const {
  for (const DeviceBuffer& b : buffers_) {
    std::vector<uint8_t> all(b.size + 2 * kGuardBytes);
    if (CUresult r = cu_.cuMemcpyDtoH(all.data(), b.base, all.size());
        r != CUDA_SUCCESS) {
      return absl::InternalError(
          absl::StrCat("reading back buffer \"", b.name, "\": ", ErrorText(cu_, r)));
    }
    for (uint64_t k = 0; k < all.size() && result.fault_kind.empty(); ++k) {
      bool guard = k < kGuardBytes || k >= kGuardBytes + b.size;
      if (guard && all[k] != kGuardByte) {
        int64_t rel = static_cast<int64_t>(k) - static_cast<int64_t>(kGuardBytes);
        result.fault_kind = "out_of_bounds";
        result.fault = absl::StrFormat(
            "buffer \"%s\" (%d bytes): the kernel wrote byte %d (0x%02x), outside the "
            "buffer",
            b.name, b.size, rel, all[k]);
      }
    }
    GpuBuffer g;
    g.name = b.name;
    g.bytes.assign(all.begin() + kGuardBytes, all.begin() + kGuardBytes + b.size);
    result.buffers.push_back(std::move(g));
  }
  return absl::OkStatus();
}

void DeviceRun::SetU32(int index, uint32_t value) {
  const uint64_t bits = value;
  std::memcpy(values_[index].data(), &bits, sizeof(bits));
}

absl::Status DeviceRun::Refill(const std::vector<std::vector<uint8_t>>& initial) {
  size_t next = 0;
  for (int i = 0; i < spec_.param_size(); ++i) {
    if (spec_.param(i).kind_case() != Param::kBuffer) continue;
    const DeviceBuffer& b = buffers_[next++];
    CUresult r = cu_.cuMemsetD8(b.base, kGuardByte, b.size + 2 * kGuardBytes);
    if (r == CUDA_SUCCESS && b.size > 0) {
      r = cu_.cuMemcpyHtoD(b.base + kGuardBytes, initial[i].data(), b.size);
    }
    if (r != CUDA_SUCCESS) {
      return absl::InternalError(
          absl::StrCat("refilling buffer \"", b.name, "\": ", ErrorText(cu_, r)));
    }
  }
  return absl::OkStatus();
}

absl::Status DeviceRun::LaunchAndWait(GpuRunResult& result, double* ms) {
  if (start_ == nullptr && (cu_.cuEventCreate(&start_, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
                            cu_.cuEventCreate(&stop_, CU_EVENT_DEFAULT) != CUDA_SUCCESS)) {
    return absl::InternalError("cuEventCreate failed");
  }
  if (ms != nullptr) cu_.cuEventRecord(start_, nullptr);
  CUresult launch =
      cu_.cuLaunchKernel(function_, spec_.grid().x(), sim::launch::DimOr1(spec_.grid().y()),
                         sim::launch::DimOr1(spec_.grid().z()), spec_.block().x(),
                         sim::launch::DimOr1(spec_.block().y()),
                         sim::launch::DimOr1(spec_.block().z()), spec_.dynamic_shared_bytes(),
                         nullptr, args_.data(), nullptr);
  if (launch != CUDA_SUCCESS) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cuLaunchKernel(", source_.kernel, ", grid ", spec_.grid().x(), ", block ",
        spec_.block().x(), ", dynamic shared ", spec_.dynamic_shared_bytes(),
        "): ", ErrorText(cu_, launch)));
  }
  if (ms != nullptr) cu_.cuEventRecord(stop_, nullptr);
  CUresult done = ms != nullptr ? cu_.cuEventSynchronize(stop_) : CUDA_SUCCESS;
  if (done == CUDA_SUCCESS) done = cu_.cuCtxSynchronize();
  if (done != CUDA_SUCCESS) {
    result.fault_kind = "cuda_error";
    result.fault = ErrorText(cu_, done);
    result.ok = false;
    lost_ = result.fault;
    return absl::OkStatus();
  }
  if (ms != nullptr) {
    float elapsed = 0;
    if (CUresult r = cu_.cuEventElapsedTime(&elapsed, start_, stop_); r != CUDA_SUCCESS)
      return absl::InternalError(absl::StrCat("cuEventElapsedTime: ", ErrorText(cu_, r)));
    *ms = elapsed;
  }
  return absl::OkStatus();
}

// The hashes, the expectations and the verdict over the buffers read back.
void Judge(const LaunchSpec& spec, GpuRunResult& result) {
  std::vector<sim::launch::NamedBuffer> named;
  for (const GpuBuffer& b : result.buffers) named.push_back({b.name, b.bytes});
  sim::launch::RunVerdict verdict =
      sim::launch::JudgeRun(spec, named, /*faulted=*/!result.fault_kind.empty());
  for (size_t i = 0; i < result.buffers.size(); ++i) {
    result.buffers[i].sha256 = verdict.buffers[i].sha256();
  }
  result.expectations = std::move(verdict.expectations);
  result.ok = verdict.ok;
}

}  // namespace

absl::Status GpuAvailable() { return GetSession().status; }

bool GpuContextLost() { return !GetSession().lost.empty(); }

absl::StatusOr<GpuRunResult> RunOnGpu(const LaunchSpec& spec,
                                      const std::string& spec_dir) {
  RETURN_IF_ERROR(sim::launch::ValidateLaunchSpec(spec));
  Session& s = GetSession();
  RETURN_IF_ERROR(s.status);
  if (!s.lost.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA is unusable in this process after an earlier device fault (",
                     s.lost, "); run the spec in a new process"));
  }
  ASSIGN_OR_RETURN(KernelSource source, ReadKernelSource(spec, spec_dir));
  // Fill every buffer before touching the device: input errors come first.
  ASSIGN_OR_RETURN(std::vector<std::vector<uint8_t>> initial, FillBuffers(spec, spec_dir));

  RETURN_IF_ERROR(EnsureContext(s));
  GpuRunResult result;
  result.device = s.device_name;
  DeviceRun run(s, spec, source);
  RETURN_IF_ERROR(run.LoadKernel());
  RETURN_IF_ERROR(run.CheckParams());
  RETURN_IF_ERROR(run.AllowDynamicShared());
  RETURN_IF_ERROR(run.Upload(initial));
  RETURN_IF_ERROR(run.Launch(result));
  if (result.fault_kind == "cuda_error") return result;
  RETURN_IF_ERROR(run.ReadBack(result));
  Judge(spec, result);
  return result;
}

namespace {

// One spec being timed: the overridden spec, its kernel, its initial bytes and the
// device-side run (which refers to the first two, so they live here, behind a pointer).
struct TimedRun {
  LaunchSpec spec;
  KernelSource source;
  std::vector<std::vector<uint8_t>> initial;
  int iters_index = -1;
  std::unique_ptr<DeviceRun> run;
  GpuRunResult fault;  // a cuda_error fault while timing
};

// Prepares one input for TimeOnGpu: spec overrides, kernel, buffers on the device.
absl::Status PrepareTimed(Session& s, const TimingInput& input, const TimingOptions& options,
                          TimedRun& t) {
  RETURN_IF_ERROR(sim::launch::ValidateLaunchSpec(input.spec));
  ASSIGN_OR_RETURN(t.spec, TimedSpec(input.spec, input.file, options.grid_x, options.iters));
  ASSIGN_OR_RETURN(t.iters_index, ItersParamIndex(t.spec, input.file));
  ASSIGN_OR_RETURN(t.source, ReadKernelSource(t.spec, input.spec_dir));
  ASSIGN_OR_RETURN(t.initial, FillBuffers(t.spec, input.spec_dir));
  t.run = std::make_unique<DeviceRun>(s, t.spec, t.source);
  RETURN_IF_ERROR(t.run->LoadKernel());
  RETURN_IF_ERROR(t.run->CheckParams());
  RETURN_IF_ERROR(t.run->AllowDynamicShared());
  RETURN_IF_ERROR(t.run->Upload(t.initial));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<TimingResult>> TimeOnGpu(const std::vector<TimingInput>& inputs,
                                                    const TimingOptions& options) {
  Session& s = GetSession();
  RETURN_IF_ERROR(s.status);
  if (!s.lost.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA is unusable in this process after an earlier device fault (",
                     s.lost, "); time the specs in a new process"));
  }
  RETURN_IF_ERROR(EnsureContext(s));
  std::vector<TimingResult> results(inputs.size());
  std::vector<TimedRun> runs(inputs.size());
  std::vector<size_t> live;  // inputs still being timed, in input order
  for (size_t i = 0; i < inputs.size(); ++i) {
    TimingResult& r = results[i];
    r.file = inputs[i].file;
    r.device = s.device_name;
    r.options = options;
    r.grid_x = options.grid_x;
    r.block_x = inputs[i].spec.block().x();
    if (absl::Status st = PrepareTimed(s, inputs[i], options, runs[i]); !st.ok()) {
      r.error = st.ToString();
      runs[i].run.reset();
      continue;
    }
    live.push_back(i);
  }
  // Specs with the same buffers (names and sizes: ours and Triton's kernel of one pair)
  // are timed on one set of them, the first such spec's (BorrowBuffers).
  for (size_t k = 1; k < live.size(); ++k) {
    for (size_t e = 0; e < k; ++e) {
      if (runs[live[k]].run->BorrowBuffers(*runs[live[e]].run)) {
        results[live[k]].buffers_from = inputs[live[e]].file;
        break;
      }
    }
  }
  // A fault loses the context: the faulting spec reports it, every other live spec gets
  // `error`, and no handle is touched again.
  std::string lost;
  auto step = [&](size_t i, double* ms) {
    TimedRun& t = runs[i];
    absl::Status st = t.run->LaunchAndWait(t.fault, ms);
    if (!st.ok()) {
      results[i].error = st.ToString();
      return false;
    }
    if (!t.fault.fault_kind.empty()) {
      lost = absl::StrCat(inputs[i].file, ": ", t.fault.fault);
      *results[i].check.mutable_faults() = ToSimReport(t.fault).faults();
      results[i].check.set_ok(false);
      return false;
    }
    return true;
  };
  auto drop_failed = [&]() {
    std::vector<size_t> still;
    for (size_t i : live) {
      if (results[i].error.empty() && results[i].check.faults_size() == 0) still.push_back(i);
    }
    live = std::move(still);
  };
  std::vector<double> timed_ms(inputs.size(), 0.0);
  // Warm-up rounds launch every live spec; a timed round only those that want another
  // sample (WantsAnotherSample), in the same interleaved order.
  auto run_round = [&](bool timed) {
    bool any = false;
    for (size_t i : live) {
      if (!lost.empty()) break;
      if (timed && !WantsAnotherSample(options, static_cast<uint32_t>(
                                                    results[i].samples_ms.size()),
                                       timed_ms[i]))
        continue;
      any = true;
      double ms = 0;
      if (step(i, timed ? &ms : nullptr) && timed) {
        results[i].samples_ms.push_back(ms);
        timed_ms[i] += ms;
      }
    }
    drop_failed();
    return any;
  };
  for (uint32_t w = 0; w < options.warmup && lost.empty(); ++w) run_round(false);
  while (lost.empty() && !live.empty() && run_round(true)) {
  }
  // The check: fresh buffers, iters = 1, judged like `gpu run`.
  for (size_t i : live) {
    if (!lost.empty()) break;
    TimedRun& t = runs[i];
    t.run->UseOwnBuffers();
    if (absl::Status st = t.run->Refill(t.initial); !st.ok()) {
      results[i].error = st.ToString();
      continue;
    }
    t.run->SetU32(t.iters_index, 1);
    GpuRunResult check;
    check.device = s.device_name;
    if (absl::Status st = t.run->LaunchAndWait(check, nullptr); !st.ok()) {
      results[i].error = st.ToString();
      continue;
    }
    if (check.fault_kind.empty()) {
      if (absl::Status st = t.run->ReadBack(check); !st.ok()) {
        results[i].error = st.ToString();
        continue;
      }
      Judge(t.spec, check);
    } else {
      lost = absl::StrCat(inputs[i].file, ": ", check.fault);
    }
    results[i].check = ToSimReport(check);
  }
  if (!lost.empty()) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      TimedRun& t = runs[i];
      if (t.run == nullptr) continue;
      bool faulted = results[i].check.faults_size() > 0;
      bool finished = faulted || !results[i].error.empty() ||
                      results[i].check.buffers_size() > 0;
      if (!finished) {
        results[i].error = absl::StrCat(
            "not finished: the GPU context was lost after a device fault (", lost,
            "); time this spec in a new process");
        results[i].samples_ms.clear();
      }
    }
    // Only the faulting run releases the context (its destructor); the others must not
    // touch their handles any more.
    for (TimedRun& t : runs) {
      if (t.run != nullptr && t.fault.fault_kind.empty()) t.run->Abandon();
    }
  }
  return results;
}

absl::StatusOr<GpuRunResult> RunLaunchFileOnGpu(const std::string& path) {
  ASSIGN_OR_RETURN(LaunchSpec spec, sim::launch::LoadLaunchSpec(path));
  return RunOnGpu(spec, sim::launch::SpecDir(path));
}

SimReport ToSimReport(const GpuRunResult& result) {
  SimReport report;
  report.set_ok(result.ok);
  if (!result.fault_kind.empty()) {
    SimFault* f = report.add_faults();
    f->set_kind(result.fault_kind);
    f->set_text(result.fault);
  }
  for (const SimExpectationResult& e : result.expectations)
    *report.add_expectations() = e;
  for (const GpuBuffer& b : result.buffers) {
    SimBuffer* out = report.add_buffers();
    out->set_name(b.name);
    out->set_sha256(b.sha256);
  }
  return report;
}

}  // namespace warpcheck::gpu
