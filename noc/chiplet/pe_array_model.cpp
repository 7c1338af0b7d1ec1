#include "noc/chiplet/pe_array_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace trainvp::noc {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::uint64_t u(std::int64_t v) { return v > 0 ? static_cast<std::uint64_t>(v) : 0; }

}  // namespace

pe_array_model::pe_array_model(const pe_array_config& cfg) : m_cfg(cfg) {
    if (cfg.pes < 1 || cfg.rows < 1 || cfg.cols < 1 || !(cfg.frequency_hz > 0) ||
        !(cfg.dram_bytes_per_s > 0) || !(cfg.vector_flops_per_cycle > 0)) {
        throw std::invalid_argument("a PE array needs positive sizes, clock and bandwidths");
    }
}

std::uint64_t pe_array_model::gemm_cycles(const gemm_shape& g) const {
    if (g.m <= 0 || g.k <= 0 || g.n <= 0 || g.count <= 0) return 0;
    const std::uint64_t pes = static_cast<std::uint64_t>(m_cfg.pes);
    const std::uint64_t tiles = u(g.count) *
                                ceil_div(u(g.k), static_cast<std::uint64_t>(m_cfg.rows)) *
                                ceil_div(u(g.n), static_cast<std::uint64_t>(m_cfg.cols));
    // Fewer tiles than PEs: split each tile's streamed rows over the PEs left idle.
    const std::uint64_t split = std::max<std::uint64_t>(1, pes / tiles);
    return ceil_div(tiles * split, pes) * ceil_div(u(g.m), split);
}

std::uint64_t pe_array_model::cycles_to_ps(std::uint64_t cycles) const {
    return static_cast<std::uint64_t>(
        std::llround(static_cast<double>(cycles) * 1e12 / m_cfg.frequency_hz));
}

std::uint64_t pe_array_model::stream_ps(std::uint64_t bytes) const {
    return static_cast<std::uint64_t>(
        std::ceil(static_cast<double>(bytes) * 1e12 / m_cfg.dram_bytes_per_s - 1e-9));
}

pass_timing pe_array_model::pass(const std::vector<gemm_shape>& gemms, std::int64_t flops,
                                 std::uint64_t footprint) const {
    pass_timing t;
    std::uint64_t gemm = 0;
    for (const auto& g : gemms) {
        gemm += gemm_cycles(g);
        t.gemm_macs += u(g.macs());
    }
    const std::uint64_t peak = static_cast<std::uint64_t>(m_cfg.pes) *
                               static_cast<std::uint64_t>(m_cfg.rows) *
                               static_cast<std::uint64_t>(m_cfg.cols);
    t.utilisation = gemm > 0 ? static_cast<double>(t.gemm_macs) /
                                   (static_cast<double>(gemm) * static_cast<double>(peak))
                             : 1.0;
    // FLOPs beyond the GEMMs' 2 per multiply-add go to the vector path.
    const std::uint64_t vector_flops = u(flops - 2 * static_cast<std::int64_t>(t.gemm_macs));
    const double vector_rate = m_cfg.vector_flops_per_cycle * m_cfg.pes;
    const auto vector = static_cast<std::uint64_t>(
        std::ceil(static_cast<double>(vector_flops) / vector_rate - 1e-9));
    t.compute_cycles = gemm + vector;
    t.footprint_bytes = footprint;
    t.streamed = footprint > m_cfg.global_buffer_bytes;
    t.memory_ps = t.streamed ? stream_ps(footprint) : 0;
    t.time_ps = std::max(cycles_to_ps(t.compute_cycles), t.memory_ps);
    return t;
}

pass_timing pe_array_model::time_work(double matrix_flops, double vector_flops,
                                      std::uint64_t bytes) const {
    pass_timing t;
    const double peak = 2.0 * static_cast<double>(m_cfg.pes) * static_cast<double>(m_cfg.rows) *
                        static_cast<double>(m_cfg.cols);
    const auto gemm =
        static_cast<std::uint64_t>(std::ceil(std::max(0.0, matrix_flops) / peak - 1e-9));
    t.gemm_macs = static_cast<std::uint64_t>(std::max(0.0, matrix_flops) / 2.0);
    const double vector_rate = m_cfg.vector_flops_per_cycle * m_cfg.pes;
    const auto vector =
        static_cast<std::uint64_t>(std::ceil(std::max(0.0, vector_flops) / vector_rate - 1e-9));
    t.compute_cycles = gemm + vector;
    t.footprint_bytes = bytes;
    t.streamed = bytes > m_cfg.global_buffer_bytes;
    t.memory_ps = t.streamed ? stream_ps(bytes) : 0;
    t.time_ps = std::max(cycles_to_ps(t.compute_cycles), t.memory_ps);
    return t;
}

layer_timing pe_array_model::time_layer(const models::layer_info& l, std::int64_t n,
                                        std::int64_t bpv) const {
    using models::layer_kind;
    std::vector<gemm_shape> fwd, bwd;
    const auto& s = l.spec;
    switch (l.kind) {
        case layer_kind::CONV: {
            // im2col: (N*P*Q) x (C/g*R*S) by (C/g*R*S) x (K/g), per group.
            const auto& in = l.input_shapes.at(0);
            const std::int64_t g = s.groups, crs = in.dims[0] / g * s.kernel_h * s.kernel_w;
            const std::int64_t npq = n * l.output_shape.dims[1] * l.output_shape.dims[2];
            const std::int64_t k = s.out_channels / g;
            fwd = {{npq, crs, k, g}};
            // dCol = dY * W^T; dW = dY^T * Col.
            bwd = {{npq, k, crs, g}, {k, npq, crs, g}};
            break;
        }
        case layer_kind::FC: {
            const auto& in = l.input_shapes.at(0);
            const std::int64_t m = n * in.positions(), f = in.channels(), o = s.out_features;
            fwd = {{m, f, o, 1}};
            bwd = {{m, o, f, 1}, {o, m, f, 1}};
            break;
        }
        case layer_kind::ATTENTION: {
            const auto& in = l.input_shapes.at(0);
            const std::int64_t t = in.dims[0], d = in.dims[1], dh = d / s.heads;
            const std::int64_t heads = n * s.heads;
            // Q, K, V, O projections; scores Q*K^T and context P*V per head.
            fwd = {{n * t, d, d, 4}, {t, dh, t, heads}, {t, t, dh, heads}};
            // Projections: input and weight gradients.  dQ = dS*K, dK = dS^T*Q, dV = P^T*dC
            // (T x T by T x dh) and dP = dC*V^T (T x dh by dh x T).
            bwd = {{n * t, d, d, 4}, {d, n * t, d, 4}, {t, t, dh, 3 * heads}, {t, dh, t, heads}};
            break;
        }
        case layer_kind::INTERACTION: {
            // X*X^T per sample (F x d by d x F); backward twice that (both operands).
            const std::int64_t d = l.input_shapes.at(0).dims[0];
            std::int64_t v = 1;
            for (std::size_t i = 1; i < l.input_shapes.size(); ++i)
                v += l.input_shapes[i].positions();
            fwd = {{v, d, v, n}};
            bwd = {{v, v, d, 2 * n}};
            break;
        }
        default:
            break;
    }
    // Operand bytes.
    std::uint64_t in_bytes = 0;
    for (const auto& sh : l.input_shapes) in_bytes += u(sh.elements() * n * bpv);
    const std::uint64_t out_bytes = u(l.activation_bytes);
    std::uint64_t weights = u(l.weight_bytes);
    if (l.kind == layer_kind::EMBEDDING) {
        // Only the looked-up rows move.
        weights = std::min(weights, u(n * s.tables * s.lookups * s.dim * bpv));
    }
    layer_timing out;
    out.forward = pass(fwd, l.forward_flops, in_bytes + weights + out_bytes);
    // Output gradient, saved input, weights, input gradient, weight gradient.
    out.backward = pass(bwd, l.backward_flops(), out_bytes + 2 * in_bytes + 2 * weights);
    return out;
}

}  // namespace trainvp::noc
