#!/usr/bin/env python3
"""DeepEP V1 as the same-lease reference of `unicomm bench moe --shape NAME --sms N` (scripts/gpu-run.sh deepep).

Runs DeepEP's public Python API (deep_ep.Buffer, built on the GPU machine from DeepEP's source; never part of this
repository) on the shapes of bench moe's presets, one row per operation, SM count and shape:
  normal mode (intranode kernels): layout + dispatch BF16 with top-k, dispatch FP8 with top-k, cached dispatch BF16,
  combine BF16, with DeepEP's recommended configs for the rank count at Buffer.set_num_sms(N);
  low-latency mode: dispatch FP8, dispatch BF16, combine BF16.
Timing is DeepEP's own test method: CUDA events around each call, back to back on the calling stream (no device
barrier between calls), the mean and the minimum of the timed calls; host wall is the loop's time over its calls.
A shape DeepEP refuses is a row with its message. Each result is checked for sanity before it is timed (normal
combine returns x times the ranks each token went to; low-latency counts add up to the routed entries).
usage: deepep_moe.py --mode normal|ll [--ranks 2] [--shapes name:hidden:topk:experts,...] [--sms 4,6,8,24,64]
                     [--tokens 4096] [--ll-tokens 128] [--iters 20] [--out FILE.tsv]
"""
import argparse
import os
import sys
import time
import traceback

import torch
import torch.distributed as dist

PRESETS = {  # bench moe's presets (benchmarks/.../MoeShape.java): hidden, top-k, experts
    'deepseek-v3': (7168, 8, 256), 'kimi-k2': (7168, 8, 384), 'qwen3-moe': (4096, 8, 128),
    'top16': (5120, 16, 256), 'top22': (3072, 22, 512), 'h2048-e1024': (2048, 8, 1024),
    'top1': (1024, 1, 64), 'top32': (1024, 32, 256)}


def parse_shapes(text):
    shapes = []
    for item in text.split(','):
        parts = item.split(':')
        if len(parts) == 1:
            shapes.append((parts[0],) + PRESETS[parts[0]])
        else:
            shapes.append((parts[0], int(parts[1]), int(parts[2]), int(parts[3])))
    return shapes


def fp8_per_token(x):
    """Per-token, per-128-column FP8 E4M3 with float scales, scales column-major as DeepEP's tests pass them."""
    t, h = x.shape
    g = x.float().view(t, h // 128, 128)
    amax = g.abs().amax(dim=2).clamp(min=1e-4)
    q = (g * (448.0 / amax.unsqueeze(2))).to(torch.float8_e4m3fn).view(t, h)
    scales = (amax / 448.0).contiguous()
    return q, scales.T.contiguous().T


def timed(fn, iters, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    t0 = time.perf_counter()
    for i in range(iters):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / iters * 1e6
    gpu = sorted(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))
    return sum(gpu) / len(gpu), gpu[0], wall


def routing(tokens, experts, topk, seed):
    g = torch.Generator(device='cuda').manual_seed(seed)
    scores = torch.rand((tokens, experts), device='cuda', generator=g) + 1e-3
    idx = torch.topk(scores, topk, dim=-1, sorted=False)[1]
    weights = torch.rand((tokens, topk), device='cuda', generator=g, dtype=torch.float32)
    return idx.to(torch.int64), weights


def layout(buffer, idx, experts, ranks):
    per_rank, _, per_expert, in_rank, _ = buffer.get_dispatch_layout(idx, experts)
    return per_rank, per_expert, in_rank


def torch_layout(idx, experts, ranks):
    """What get_dispatch_layout returns, computed with torch: tokens per rank and per expert, token-in-rank flags."""
    owner = idx // (experts // ranks)
    in_rank = torch.stack([(owner == r).any(dim=1) for r in range(ranks)], dim=1)
    per_rank = in_rank.sum(dim=0).to(torch.int32)
    per_expert = torch.bincount(idx.flatten(), minlength=experts).to(torch.int32)
    return per_rank, per_expert, in_rank


def normal_rows(deep_ep, buffer, rank, ranks, shape, sms_list, a, emit):
    name, hidden, topk, experts = shape
    x = torch.randn((a.tokens, hidden), dtype=torch.bfloat16, device='cuda')
    idx, w = routing(a.tokens, experts, topk, 1 + rank)
    x8 = fp8_per_token(x)
    try:
        buffer.get_dispatch_layout(idx, experts)
        own_layout = True
    except RuntimeError as e:  # DeepEP V1's layout kernel takes at most 128 experts per rank: the layout from torch instead
        own_layout = False
        print(f'{name}: get_dispatch_layout refused ({" ".join(str(e).split())[:160]}); layout computed with torch, untimed', flush=True)
    for sms in sms_list:
        deep_ep.Buffer.set_num_sms(sms)
        dcfg, ccfg = deep_ep.Buffer.get_dispatch_config(ranks), deep_ep.Buffer.get_combine_config(ranks)
        per_rank, per_expert, in_rank = layout(buffer, idx, experts, ranks) if own_layout else torch_layout(idx, experts, ranks)
        args = dict(num_tokens_per_rank=per_rank, is_token_in_rank=in_rank, num_tokens_per_expert=per_expert,
                    topk_idx=idx, topk_weights=w, config=dcfg)
        recv_x, recv_idx, recv_w, _, handle, _ = buffer.dispatch(x, **args)
        combined, _, _ = buffer.combine(recv_x, handle, topk_weights=recv_w, config=ccfg)
        expect = x.float() * in_rank.sum(dim=1, keepdim=True).float()
        err = ((combined.float() - expect).abs().max() / expect.abs().max().clamp(min=1e-6)).item()
        if err > 2e-2:
            raise RuntimeError(f'combine check failed: relative error {err:.3g}')
        rows_in = recv_x.size(0)

        def layout_dispatch():
            pr, _, pe, ir, _ = buffer.get_dispatch_layout(idx, experts)
            buffer.dispatch(x, num_tokens_per_rank=pr, is_token_in_rank=ir, num_tokens_per_expert=pe,
                            topk_idx=idx, topk_weights=w, config=dcfg)
        ops = [('dispatch BF16, layout + top-k' if own_layout else 'dispatch BF16, top-k (layout from torch, untimed)',
                layout_dispatch if own_layout else (lambda: buffer.dispatch(x, **args)), rows_in * hidden * 2),
               ('dispatch FP8, top-k', lambda: buffer.dispatch(x8, **args), rows_in * (hidden + hidden // 128 * 4)),
               ('dispatch BF16, cached', lambda: buffer.dispatch(x, handle=handle, config=dcfg), rows_in * hidden * 2),
               ('combine BF16', lambda: buffer.combine(recv_x, handle, topk_weights=recv_w, config=ccfg), rows_in * hidden * 2)]
        for op, fn, nbytes in ops:
            dist.barrier()
            mean, best, wall = timed(fn, a.iters)
            emit(name, 'normal', op, sms, a.tokens, mean, best, wall, nbytes, f'received rows {rows_in}; check err {err:.2g}')


def ll_rows(buffer, rank, ranks, shape, a, emit):
    name, hidden, topk, experts = shape
    buffer.clean_low_latency_buffer(a.ll_tokens, hidden, experts)
    x = torch.randn((a.ll_tokens, hidden), dtype=torch.bfloat16, device='cuda')
    idx, w = routing(a.ll_tokens, experts, topk, 100 + rank)
    recv, count, handle, _, _ = buffer.low_latency_dispatch(x, idx, a.ll_tokens, experts, use_fp8=False)
    total = torch.tensor([int(count.sum().item())], dtype=torch.int64)
    routed = torch.tensor([int(idx.numel())], dtype=torch.int64)
    dist.all_reduce(total)
    dist.all_reduce(routed)
    if total.item() != routed.item():
        raise RuntimeError(f'low-latency dispatch check failed: {total.item()} rows received for {routed.item()} routed')
    expert_out = recv.clone()
    ops = [('ll dispatch FP8', lambda: buffer.low_latency_dispatch(x, idx, a.ll_tokens, experts, use_fp8=True)),
           ('ll dispatch BF16', lambda: buffer.low_latency_dispatch(x, idx, a.ll_tokens, experts, use_fp8=False)),
           ('ll combine BF16', lambda: buffer.low_latency_combine(expert_out, idx, w, handle))]
    for op, fn in ops:
        dist.barrier()
        mean, best, wall = timed(fn, a.ll_iters)
        emit(name, 'll', op, 'all', a.ll_tokens, mean, best, wall, a.ll_tokens * topk * hidden * 2, 'rows checked')


def worker(rank, a):
    os.environ.setdefault('NVSHMEM_DISABLE_NVLS', '1')
    dist.init_process_group('gloo', init_method=f'tcp://127.0.0.1:{a.port}', world_size=a.ranks, rank=rank)
    torch.cuda.set_device(rank % torch.cuda.device_count())
    import deep_ep
    shapes = parse_shapes(a.shapes)
    sms_list = [int(s) for s in a.sms.split(',')]
    out = open(a.out, 'a', buffering=1) if rank == 0 else None

    def emit(shape, mode, op, sms, tokens, mean, best, wall, nbytes, note):
        if out:
            out.write('\t'.join(map(str, [shape, mode, op, sms, tokens, f'{mean:.1f}', f'{best:.1f}', f'{wall:.1f}',
                                          f'{nbytes / mean / 1e3:.1f}', note])) + '\n')
            print(f'{shape:12} {mode:6} {op:32} sms {sms:>3}: GPU mean {mean:8.1f} us, min {best:8.1f}, host {wall:8.1f}', flush=True)

    def refused(shape, mode, e):
        if out:
            msg = ' '.join(str(e).split())[:300]
            out.write('\t'.join([shape[0], mode, 'refused', '-', '-', '-', '-', '-', '-', msg]) + '\n')
            print(f'{shape[0]:12} {mode:6} refused: {msg}', flush=True)

    if a.mode == 'normal':
        hint = 0
        deep_ep.Buffer.set_num_sms(max(sms_list))
        for _, hidden, _, _ in shapes:
            for cfg in (deep_ep.Buffer.get_dispatch_config(a.ranks), deep_ep.Buffer.get_combine_config(a.ranks)):
                hint = max(hint, cfg.get_nvl_buffer_size_hint(hidden * 2, a.ranks))
        buffer = deep_ep.Buffer(dist.group.WORLD, hint, 0, explicitly_destroy=True)
        for shape in shapes:
            try:
                normal_rows(deep_ep, buffer, rank, a.ranks, shape, sms_list, a, emit)
            except (RuntimeError, AssertionError) as e:
                refused(shape, 'normal', e)
                if 'CUDA' in str(e):
                    break
            dist.barrier()
    else:
        rdma = max(deep_ep.Buffer.get_low_latency_rdma_size_hint(a.ll_tokens, h, a.ranks, e) for _, h, _, e in shapes)
        qps = max(e // a.ranks for _, _, _, e in shapes)
        buffer = deep_ep.Buffer(dist.group.WORLD, 0, rdma, low_latency_mode=True, num_qps_per_rank=qps,
                                explicitly_destroy=True)
        for shape in shapes:
            try:
                ll_rows(buffer, rank, a.ranks, shape, a, emit)
            except (RuntimeError, AssertionError) as e:
                refused(shape, 'll', e)
                if 'CUDA' in str(e):
                    break
            dist.barrier()
    buffer.destroy()
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--mode', choices=['normal', 'll'], required=True)
    p.add_argument('--ranks', type=int, default=2)
    p.add_argument('--shapes', default='deepseek-v3,kimi-k2,qwen3-moe,top16,top22,h2048-e1024')
    p.add_argument('--sms', default='4,6,8,24,64')
    p.add_argument('--tokens', type=int, default=4096)
    p.add_argument('--ll-tokens', type=int, default=128)
    p.add_argument('--iters', type=int, default=20)
    p.add_argument('--ll-iters', type=int, default=30)
    p.add_argument('--port', type=int, default=29517)
    p.add_argument('--out', default='deepep-moe.tsv')
    a = p.parse_args()
    if not os.path.exists(a.out):
        with open(a.out, 'w') as f:
            f.write('shape\tmode\toperation\tsms\ttokens\tgpu_mean_us\tgpu_min_us\thost_us\tGB/s\tnote\n')
    try:
        torch.multiprocessing.spawn(worker, args=(a,), nprocs=a.ranks)
    except Exception:
        traceback.print_exc()
        sys.exit(1)


if __name__ == '__main__':
    main()
