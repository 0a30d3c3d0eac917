"""The `--types` mode of scripts/bench-kv-compare: Redis data-type workloads of
`strata bench kv` (hset-hget, lpush-lpop, zadd-zrange, eval (Lua scripts that SET / GET
their key), and the queue of producers
LPUSH / consumers BLPOP with its delivery check), Strata's RESP front end against
Redis at pipeline depths 1 and 16, in interleaved rounds.

Both servers get the same request sequence (one fixed --seed); each workload has its own
keys (`hset-hget:N`, ..., the queue `q:queue:N`), so no command meets a key of another
type (WRONGTYPE). Hashes and sorted sets
are filled first with --type-keys x --fields set requests (uniform keys, so most fields
or members exist); lists start empty and the 1:1 mix keeps them short.
"""

import sys

from kv_peers import bench, cpu_us, fmt_ops, median, ratio

TYPES = ("hset-hget", "lpush-lpop", "zadd-zrange", "eval")
SERVERS = ("redis", "strata-resp")


def add_arguments(parser):
    group = parser.add_argument_group("--types mode")
    group.add_argument("--types-ratio", default="1:1", metavar="SETS:GETS",
                       help="write:read mix of the type workloads (default 1:1)")
    group.add_argument("--type-keys", type=int, default=100_000,
                       help="hashes, lists and sorted sets the type workloads spread over (default 100,000)")
    group.add_argument("--fields", type=int, default=10, help="fields per hash / members per sorted set (default 10)")
    group.add_argument("--range", type=int, default=10, help="members read by each ZRANGE (default 10)")
    group.add_argument("--queues", type=int, default=4, help="lists of the queue workload (default 4)")
    group.add_argument("--seed", type=int, default=1, help="seed of every run's key sequence (default 1)")


def run(servers, strata_bin, out_dir, args, pinning):
    redis, redis_port = servers.redis()
    strata, _, sresp_port = servers.strata()
    targets = [("redis", redis_port, redis.pid), ("strata-resp", sresp_port, strata.pid)]
    common = ["--connections", str(args.connections), "--key-max", str(args.type_keys), "--value-size", "50",
              "--fields", str(args.fields), "--range", str(args.range), "--seed", str(args.seed)]
    timing = ["--duration", str(args.duration), "--warmup", str(args.warmup)]
    for name, port, pid in targets:
        for workload in ("hset-hget", "zadd-zrange"):
            bench(strata_bin, out_dir, f"fill-{workload}-{name}", "resp", port, pid,
                  [*common, "--workload", workload, "--key-prefix", f"{workload}:", "--ratio", "1:0",
                   "--pipeline", "64",
                   "--requests", str(args.type_keys * args.fields)], pinning)
    results = {}
    for round_ in range(args.repeat):
        for pipeline in (1, 16):
            for workload in TYPES + ("queue",):
                for name, port, pid in targets:
                    label = f"{workload}-p{pipeline}-{name}-r{round_}"
                    print(f"running {label}", file=sys.stderr)
                    if workload == "queue":
                        tail = ["--workload", "queue", "--key-prefix", "q:", "--connections", str(args.connections),
                                "--consumers", str(args.connections), "--queues", str(args.queues),
                                "--value-size", "50", "--seed", str(args.seed + round_)]
                    else:
                        tail = [*common, "--workload", workload, "--key-prefix", f"{workload}:",
                                "--ratio", args.types_ratio]
                    result = bench(strata_bin, out_dir, label, "resp", port, pid,
                                   [*tail, "--pipeline", str(pipeline), *timing], pinning,
                                   check=workload != "queue")
                    results.setdefault((workload, pipeline, name), []).append(result)
    return results


def render(results, args):
    spread = args.repeat > 1
    lines = [
        f"Load: `strata bench kv --workload W`, {args.connections} connections, 50-byte values, "
        f"{args.type_keys:,} keys, {args.fields} fields per hash / members per sorted set, ZRANGE of "
        f"{args.range}, set:get {args.types_ratio}, seed {args.seed}; {args.duration:g} s per run after "
        f"{args.warmup:g} s warm-up{f', {args.repeat} interleaved rounds (medians)' if spread else ''}. "
        f"Queue: {args.connections} producers (LPUSH, pipelined) and {args.connections} consumers "
        f"(BLPOP, one at a time) over {args.queues} lists.",
        "",
        "| workload | pipeline | server | ops/s | p50 ms | p99 ms | server CPU µs/request | ops vs redis | CPU vs redis |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for pipeline in (1, 16):
        for workload in TYPES:
            base = summary(results[(workload, pipeline, "redis")])
            for name in SERVERS:
                s = summary(results[(workload, pipeline, name)])
                mine = name != "redis"
                lines.append(
                    f"| {workload} | {pipeline} | {name} | {fmt_ops(s['ops'])}{s['errors']} | {s['p50']:.3f} "
                    f"| {s['p99']:.3f} | {s['cpu_text']} | {ratio(s['ops'], base['ops']) if mine else ''} "
                    f"| {ratio(s['cpu'], base['cpu']) if mine else ''} |")
    lines += ["", "| queue | server | delivered/s | ops/s | p99 ms | server CPU µs/request | pushed | lost "
              "| duplicated | corrupt | delivered vs redis | CPU vs redis |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for pipeline in (1, 16):
        runs_redis = results[("queue", pipeline, "redis")]
        base_delivered = median([r["queue"]["delivered_per_sec"] for r in runs_redis])
        base = summary(runs_redis)
        for name in SERVERS:
            runs = results[("queue", pipeline, name)]
            s = summary(runs)
            delivered = median([r["queue"]["delivered_per_sec"] for r in runs])
            total = {k: sum(r["queue"][k] for r in runs) for k in ("pushed", "lost", "duplicated", "corrupt")}
            mine = name != "redis"
            lines.append(
                f"| pipeline {pipeline} | {name} | {fmt_ops(delivered)} | {fmt_ops(s['ops'])} | {s['p99']:.3f} "
                f"| {s['cpu_text']} | {total['pushed']:,} | {total['lost']} | {total['duplicated']} "
                f"| {total['corrupt']} | {ratio(delivered, base_delivered) if mine else ''} "
                f"| {ratio(s['cpu'], base['cpu']) if mine else ''} |")
    lines += ["", "Lost, duplicated and corrupt are summed over the rounds; each must be 0. Ratios are "
              "Strata / Redis: above 1 is faster for throughput, below 1 is less CPU per request.", ""]
    return "\n".join(lines)


def summary(runs):
    cpus = [cpu_us(r) for r in runs if cpu_us(r) is not None]
    cpu = median(cpus) if cpus else None
    errors = sum(r["errors"] for r in runs)
    return {
        "ops": median([r["ops_per_sec"] for r in runs]),
        "p50": median([r["latency_ms"]["p50"] for r in runs]),
        "p99": median([r["latency_ms"]["p99"] for r in runs]),
        "cpu": cpu,
        "cpu_text": (f"{cpu:.2f}" if cpu is not None else "-")
        + (f" ({min(cpus):.2f}-{max(cpus):.2f})" if len(cpus) > 1 else ""),
        "errors": f" ({errors} errors)" if errors else "",
    }
