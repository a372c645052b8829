#include "tools/gpu/gpu_runner.h"

#include <cuda.h>
#include <dlfcn.h>

#include <array>
#include <cctype>
#include <cstring>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/launch/buffer_fill.h"
#include "sim/launch/sha256.h"

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

// Runs the registered cleanups in reverse order on scope exit.
class Cleanup {
 public:
  ~Cleanup() {
    for (auto it = fns_.rbegin(); it != fns_.rend(); ++it) (*it)();
  }
  void Add(std::function<void()> fn) { fns_.push_back(std::move(fn)); }

 private:
  std::vector<std::function<void()>> fns_;
};

absl::StatusOr<std::string> ReadText(const std::string& path) {
  absl::StatusOr<std::string> text = sim::ReadFile(path);
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

uint64_t ParamSize(const Param& p) {
  switch (p.kind_case()) {
    case Param::kU32:
    case Param::kS32:
    case Param::kF32:
      return 4;
    default:
      return 8;
  }
}

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

}  // namespace

absl::Status GpuAvailable() { return GetSession().status; }

bool GpuContextLost() { return !GetSession().lost.empty(); }

absl::StatusOr<GpuRunResult> RunOnGpu(const LaunchSpec& spec,
                                      const std::string& spec_dir) {
  RETURN_IF_ERROR(sim::ValidateLaunchSpec(spec));
  Session& s = GetSession();
  RETURN_IF_ERROR(s.status);
  if (!s.lost.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA is unusable in this process after an earlier device fault (",
                     s.lost, "); run the spec in a new process"));
  }
  const Driver& cu = s.cu;

  std::string ptx_path = spec.ptx_file();
  if (!ptx_path.empty() && ptx_path[0] != '/' && !spec_dir.empty()) {
    ptx_path = absl::StrCat(spec_dir, "/", ptx_path);
  }
  ASSIGN_OR_RETURN(std::string ptx, ReadText(ptx_path));
  std::string kernel = spec.kernel();
  if (kernel.empty()) {
    std::vector<std::string> entries = EntryNames(ptx);
    if (entries.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(ptx_path, ": `kernel` is not set and the module has ",
                       entries.size(), " .entry"));
    }
    kernel = entries[0];
  }
  // Fill every buffer before touching the device: input errors come first.
  std::vector<std::vector<uint8_t>> initial(spec.param_size());
  for (int i = 0; i < spec.param_size(); ++i) {
    if (spec.param(i).kind_case() != Param::kBuffer) continue;
    ASSIGN_OR_RETURN(initial[i], sim::FillBuffer(spec.param(i).buffer(), spec_dir));
  }

  RETURN_IF_ERROR(EnsureContext(s));
  // Set when a device fault destroyed the context: its handles must not be used again.
  bool context_lost = false;
  Cleanup cleanup;
  GpuRunResult result;
  result.device = s.device_name;

  // Module, with the JIT's error log for PTX the driver rejects.
  CUmodule module = nullptr;
  {
    std::vector<char> log(16384, '\0');
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log.data(),
                    reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
    CUresult r = cu.cuModuleLoadDataEx(&module, ptx.c_str(), 2, opts, vals);
    if (r != CUDA_SUCCESS) {
      return absl::InvalidArgumentError(
          absl::StrCat(ptx_path, ": the driver rejects the PTX: ", ErrorText(cu, r), "\n",
                       log.data()));
    }
  }
  cleanup.Add([&cu, module, &context_lost] {
    if (!context_lost) cu.cuModuleUnload(module);
  });
  CUfunction function = nullptr;
  if (CUresult r = cu.cuModuleGetFunction(&function, module, kernel.c_str());
      r != CUDA_SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat(ptx_path, ": no kernel \"", kernel, "\": ", ErrorText(cu, r)));
  }

  // Parameters must match the .entry one for one, in size (when the driver can tell).
  if (cu.cuFuncGetParamInfo != nullptr) {
    for (int i = 0; i <= spec.param_size(); ++i) {
      size_t offset = 0, size = 0;
      CUresult r = cu.cuFuncGetParamInfo(function, i, &offset, &size);
      if (i == spec.param_size()) {
        if (r == CUDA_SUCCESS) {
          return absl::InvalidArgumentError(
              absl::StrCat(ptx_path, ": kernel ", kernel, " has more than the spec's ",
                           spec.param_size(), " parameters"));
        }
        break;
      }
      if (r != CUDA_SUCCESS) {
        return absl::InvalidArgumentError(
            absl::StrCat(ptx_path, ": kernel ", kernel, " has ", i,
                         " parameters, the spec gives ", spec.param_size()));
      }
      if (size != ParamSize(spec.param(i))) {
        return absl::InvalidArgumentError(
            absl::StrCat(ptx_path, ": parameter ", i, " of ", kernel, " is ", size,
                         " bytes; the spec passes ", ParamKind(spec.param(i)), " (",
                         ParamSize(spec.param(i)), " bytes)"));
      }
    }
  }
  if (spec.dynamic_shared_bytes() > 48 * 1024) {
    CUresult r =
        cu.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              static_cast<int>(spec.dynamic_shared_bytes()));
    if (r != CUDA_SUCCESS) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot allow ", spec.dynamic_shared_bytes(),
                       " bytes of dynamic shared memory: ", ErrorText(cu, r)));
    }
  }

  // Buffers: [guard | bytes | guard], guards 0x5A, bytes from the fill.
  std::vector<DeviceBuffer> buffers;
  std::vector<std::array<uint8_t, 8>> values(spec.param_size());
  std::vector<void*> args(spec.param_size());
  cleanup.Add([&cu, &buffers, &context_lost] {
    if (context_lost) return;
    for (const DeviceBuffer& b : buffers) cu.cuMemFree(b.base);
  });
  for (int i = 0; i < spec.param_size(); ++i) {
    const Param& p = spec.param(i);
    values[i].fill(0);
    switch (p.kind_case()) {
      case Param::kBuffer: {
        DeviceBuffer b;
        b.name = p.buffer().name();
        b.size = initial[i].size();
        uint64_t total = b.size + 2 * kGuardBytes;
        if (CUresult r = cu.cuMemAlloc(&b.base, total); r != CUDA_SUCCESS) {
          return absl::ResourceExhaustedError(absl::StrCat(
              "cuMemAlloc(", total, ") for buffer \"", b.name, "\": ", ErrorText(cu, r)));
        }
        buffers.push_back(b);
        CUresult r = cu.cuMemsetD8(b.base, kGuardByte, total);
        if (r == CUDA_SUCCESS && b.size > 0) {
          r = cu.cuMemcpyHtoD(b.base + kGuardBytes, initial[i].data(), b.size);
        }
        if (r != CUDA_SUCCESS) {
          return absl::InternalError(
              absl::StrCat("filling buffer \"", b.name, "\": ", ErrorText(cu, r)));
        }
        CUdeviceptr ptr = b.base + kGuardBytes;
        std::memcpy(values[i].data(), &ptr, sizeof(ptr));
        break;
      }
      case Param::kU32: {
        uint32_t v = p.u32();
        std::memcpy(values[i].data(), &v, 4);
        break;
      }
      case Param::kS32: {
        int32_t v = p.s32();
        std::memcpy(values[i].data(), &v, 4);
        break;
      }
      case Param::kF32: {
        float v = p.f32();
        std::memcpy(values[i].data(), &v, 4);
        break;
      }
      case Param::kU64: {
        uint64_t v = p.u64();
        std::memcpy(values[i].data(), &v, 8);
        break;
      }
      case Param::kS64: {
        int64_t v = p.s64();
        std::memcpy(values[i].data(), &v, 8);
        break;
      }
      case Param::kNullPtr:
      case Param::KIND_NOT_SET:
        break;
    }
    args[i] = values[i].data();
  }

  // Launch once, timed with events.
  CUevent start = nullptr, stop = nullptr;
  if (cu.cuEventCreate(&start, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      cu.cuEventCreate(&stop, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
    return absl::InternalError("cuEventCreate failed");
  }
  cleanup.Add([&cu, start, stop, &context_lost] {
    if (context_lost) return;
    cu.cuEventDestroy(start);
    cu.cuEventDestroy(stop);
  });
  cu.cuEventRecord(start, nullptr);
  CUresult launch =
      cu.cuLaunchKernel(function, spec.grid().x(), sim::DimOr1(spec.grid().y()),
                        sim::DimOr1(spec.grid().z()), spec.block().x(),
                        sim::DimOr1(spec.block().y()), sim::DimOr1(spec.block().z()),
                        spec.dynamic_shared_bytes(), nullptr, args.data(), nullptr);
  if (launch != CUDA_SUCCESS) {
    // Refused before running (too many threads or registers, too much shared memory):
    // not sticky, the context stays usable.
    return absl::FailedPreconditionError(
        absl::StrCat("cuLaunchKernel(", kernel, ", grid ", spec.grid().x(), ", block ",
                     spec.block().x(), ", dynamic shared ", spec.dynamic_shared_bytes(),
                     "): ", ErrorText(cu, launch)));
  }
  cu.cuEventRecord(stop, nullptr);
  CUresult done = cu.cuEventSynchronize(stop);
  if (done == CUDA_SUCCESS) done = cu.cuCtxSynchronize();
  if (done != CUDA_SUCCESS) {
    // A fault on the device poisons the context: report it and start afresh next time.
    result.fault_kind = "cuda_error";
    result.fault = ErrorText(cu, done);
    context_lost = true;
    cleanup.Add([&s, why = result.fault] { LoseContext(s, why); });
    result.ok = false;
    return result;
  }
  float ms = 0;
  if (cu.cuEventElapsedTime(&ms, start, stop) == CUDA_SUCCESS) result.kernel_ms = ms;

  // Copy back (guards included) and check the guards.
  std::vector<sim::NamedBuffer> named;
  for (const DeviceBuffer& b : buffers) {
    std::vector<uint8_t> all(b.size + 2 * kGuardBytes);
    if (CUresult r = cu.cuMemcpyDtoH(all.data(), b.base, all.size()); r != CUDA_SUCCESS) {
      return absl::InternalError(
          absl::StrCat("reading back buffer \"", b.name, "\": ", ErrorText(cu, r)));
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
    g.sha256 = sim::Sha256Hex(g.bytes);
    named.push_back({g.name, g.bytes});
    result.buffers.push_back(std::move(g));
  }
  result.expectations = sim::EvaluateExpectations(spec, named);
  result.ok = result.fault_kind.empty();
  for (const SimExpectationResult& e : result.expectations)
    result.ok = result.ok && e.ok();
  return result;
}

absl::StatusOr<GpuRunResult> RunLaunchFileOnGpu(const std::string& path) {
  ASSIGN_OR_RETURN(LaunchSpec spec, sim::LoadLaunchSpec(path));
  return RunOnGpu(spec, sim::SpecDir(path));
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
