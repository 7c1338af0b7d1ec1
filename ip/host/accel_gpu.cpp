#include "ip/host/accel_gpu.h"

#include <algorithm>
#include <cmath>

#include "ip/host/accel_op_ext.h"
#include "kit/registry.h"
#include "kit/resource_usage.h"
#include "kit/sim_time.h"
#include "workloads/models/device_model.h"

namespace trainvp::ip {

using sc_core::sc_time;

namespace {}  // namespace

void accel_gpu::declare(type_decl<accel_gpu>& d) {
    d.describe(
        "GPU accelerator. A kernel of F flops and B bytes of GPU-memory traffic takes launch + "
        "F / (peak x efficiency) + B / (memory_bandwidth x memory_efficiency) (paleo.md eq. "
        "1: compute and memory time in sequence) on the compute engine. A copy moves its bytes "
        "between host memory "
        "and the GPU through `pcie` in bursts of copy_burst with copy_outstanding in flight "
        "(dma_channel), after copy_setup. Each engine serves its commands in arrival order; "
        "the two engines overlap.");
    d.param("peak", &accel_gpu::m_peak, "12.15TFLOP/s",
            "Peak FP32 rate. Default: NVIDIA Titan Xp (inceptionn.md §VII-C), NVIDIA's "
            "specification: 3840 CUDA cores x 1582 MHz boost x 2 FLOP (FMA) = 12.15 TFLOP/s")
        .range("1GFLOP/s", "10PFLOP/s");
    d.param("efficiency", &accel_gpu::m_efficiency, "100%",
            "Platform percent of peak (paleo.md §3.3: close to 100% for cuDNN-class libraries, "
            "50% or less for frameworks with more overhead); fit it to a measured kernel time")
        .range("0.1%", "100%");
    d.param("slowdown", &accel_gpu::m_slowdown, "1",
            "Fault: a straggler GPU (thermal or power throttling, a noisy neighbour): every "
            "kernel takes slowdown x its time (launch, compute and memory, or its measured "
            "duration). 1 = a healthy GPU")
        .range("1", "1000");
    d.param("memory_bandwidth", &accel_gpu::m_memory_bandwidth, "547.7GB/s",
            "GPU-memory bandwidth for a kernel's traffic. Default: Titan Xp, NVIDIA's "
            "specification: 11.4 Gb/s GDDR5X x 384-bit bus = 547.7 GB/s")
        .range("1GB/s", "100TB/s");
    d.param("memory_efficiency", &accel_gpu::m_memory_efficiency, "100%",
            "Fraction of memory_bandwidth a kernel's traffic reaches (paleo.md §3.3's percent of "
            "peak for I/O; the PALEO authors apply their one PPP to both, "
            "TalwalkarLab/paleo paleo/profilers/flops_profiler.py)")
        .range("0.1%", "100%");
    d.param("launch", &accel_gpu::m_launch, "0ns",
            "Fixed time per kernel (launch and synchronisation). Calibration param: fit it to "
            "measured short kernels")
        .range("0ns", "1s");
    d.param("copy_burst", &accel_gpu::m_copy_burst, "256B",
            "Bytes per copy-engine request on `pcie` (default: 256 B, the PCIe max payload "
            "size servers commonly set)")
        .range("4B", "1GiB");
    d.param("copy_outstanding", &accel_gpu::m_copy_outstanding, "32",
            "Copy-engine requests in flight at most (modelling knob: enough to cover the "
            "path's latency gives the path's bandwidth)")
        .range("1", "4096");
    d.param("copy_rate", &accel_gpu::m_copy_rate, "0GB/s",
            "Sustained rate of the copy engine; 0 = only the PCIe path limits it (pinned host "
            "memory). cudaMemcpy of pageable host memory is staged by the driver through pinned "
            "buffers and runs well below the link: set it to the measured pageable rate")
        .range("0GB/s", "1TB/s");
    d.param("copy_setup", &accel_gpu::m_copy_setup, "0ns",
            "Time per copy before its first request (descriptor fetch, cudaMemcpy call). "
            "Calibration param")
        .range("0ns", "1s");
    d.target("ctrl", &accel_gpu::ctrl, "accel", "Commands from the host (accel_op_ext)");
    d.initiator("pcie", &accel_gpu::pcie, "mem",
                "The copy engine's path to host memory (a PCIe link, or a memory in tests)");
    d.stat("kernels", &accel_gpu::m_kernels, "1", "Kernels run");
    d.stat("flops", &accel_gpu::m_flops, "FLOP", "Floating-point operations of the kernels");
    d.stat("compute_busy", &accel_gpu::m_compute_busy_ns, "ns", "Time the compute engine ran");
    d.headline("compute_utilisation", &accel_gpu::m_compute_utilisation, "1",
               "compute_busy / simulated time");
    d.stat("kernel_wait", &accel_gpu::m_kernel_wait_ns, "ns",
           "Time a kernel waited for the compute engine");
    d.stat("copies", &accel_gpu::m_copies, "1", "Copies done");
    d.stat("bytes_to_gpu", &accel_gpu::m_bytes_to_gpu, "B", "Bytes copied from host memory");
    d.stat("bytes_to_host", &accel_gpu::m_bytes_to_host, "B", "Bytes copied to host memory");
    d.stat("copy_bursts", &accel_gpu::m_copy_bursts, "1", "Requests the copy engine issued");
    d.stat("copy_busy", &accel_gpu::m_copy_busy_ns, "ns", "Time the copy engine was copying");
    d.stat("copy_utilisation", &accel_gpu::m_copy_utilisation, "1", "copy_busy / simulated time");
    d.stat("copy_wait", &accel_gpu::m_copy_wait_ns, "ns", "Time a copy waited for the engine");
    d.signal("compute_busy", &accel_gpu::m_compute_busy, "1 while a kernel runs");
    d.signal("copy_busy", &accel_gpu::m_copy_busy, "1 while the copy engine copies");
}

accel_gpu::accel_gpu(const sc_core::sc_module_name& name, const params& p) : ip_module(name, p) {
    p.apply(*this);
    dma_channel::settings s;
    s.burst = m_copy_burst.bytes;
    s.outstanding = m_copy_outstanding;
    s.setup = ps_time(m_copy_setup.ps);
    s.max_bytes_per_s = m_copy_rate.bytes_per_s;
    m_dma.configure(s);
    ctrl.register_b_transport(this, &accel_gpu::b_transport);
}

void accel_gpu::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
    accel_op_ext* ext = nullptr;
    trans.get_extension(ext);
    if (ext == nullptr) {
        trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    const sc_time now = sim_now();
    const sc_time arrival = now + delay;
    sc_time start, end;
    if (ext->what == accel_op_ext::kind::COMPUTE) {
        start = std::max(arrival, m_compute_until);
        // paleo.md eq. 1 on the device model (the one workloads/models' roofline uses).
        const models::device_model device{m_peak.flops_per_s, m_memory_bandwidth.bytes_per_s,
                                          m_efficiency, m_memory_efficiency};
        end = ext->duration_ps > 0
                  ? start + ps_time(ext->duration_ps)
                  : start + ps_time(m_launch.ps) + ps_time(device.compute_ps(ext->flops)) +
                        ps_time(device.memory_ps(ext->bytes));
        if (m_slowdown != 1.0) {
            end = start + ps_time(static_cast<std::uint64_t>(std::llround(
                              static_cast<double>((end - start).value()) * m_slowdown)));
        }
        m_compute_until = end;
        ++m_kernels;
        m_flops.add(ext->flops);
        m_compute_busy_ns.add(ns(end - start));
        m_kernel_wait_ns.sample(ns(start - arrival));
        m_compute_busy.busy(start, end);
        span("kernel", "compute", start, end);
    } else {
        const bool to_gpu = ext->what == accel_op_ext::kind::COPY_TO_GPU;
        start = std::max(arrival, m_copy_until);
        const std::uint64_t bursts_before = m_dma.bursts.value();
        // To the GPU the engine reads host memory; to the host it writes it.
        const dma_channel::result r =
            m_dma.run(*pcie.operator->(), to_gpu ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND,
                      ext->host_addr, ext->bytes, start);
        if (!r.ok) {
            throw sim_error(path() + ": copy " + (to_gpu ? "to GPU" : "to host") + " of " +
                            std::to_string(ext->bytes) + " B at host address " +
                            std::to_string(ext->host_addr) + " failed: " + r.error);
        }
        end = r.done;
        m_copy_until = end;
        ++m_copies;
        (to_gpu ? m_bytes_to_gpu : m_bytes_to_host) += ext->bytes;
        m_copy_bursts += m_dma.bursts.value() - bursts_before;
        m_copy_busy_ns.add(ns(end - start));
        m_copy_wait_ns.sample(ns(start - arrival));
        m_copy_busy.busy(start, end);
        span(to_gpu ? "copy to gpu" : "copy to host", "copy", start, end);
    }
    ext->start_ps = start.value();
    delay = end - now;
    progress_until(end);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

std::string accel_gpu::pending_work() const {
    const sc_time now = sim_now();
    std::string out;
    if (m_compute_until > now) out = "a kernel runs until " + m_compute_until.to_string();
    if (m_copy_until > now) {
        if (!out.empty()) out += "; ";
        out += "a copy runs until " + m_copy_until.to_string();
    }
    return out;
}

void accel_gpu::end_of_run() {
    const double t = ns(sim_now());
    m_compute_utilisation.set(
        resource_usage::busy_fraction(m_compute_busy_ns.value(), ns(m_compute_until), t));
    m_copy_utilisation.set(
        resource_usage::busy_fraction(m_copy_busy_ns.value(), ns(m_copy_until), t));
}

TRAINVP_REGISTER_IP(accel_gpu, "accel.gpu");

}  // namespace trainvp::ip
