//! The machine a lab run measured: CPU, cores, memory, block devices, and the
//! chosen data directory's filesystem with its measured fsync latency and
//! random-read IOPS (durability and SSD figures mean little without them).

use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::FileExt as _;
use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Bytes written and synced per fsync sample, and read per random read.
const BLOCK: usize = 4096;

/// The machine description written at the top of every report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// `model name` of the first CPU in /proc/cpuinfo.
    pub cpu_model: String,
    /// Logical CPUs available to the lab.
    pub cores: usize,
    /// MemTotal from /proc/meminfo, bytes.
    pub memory_bytes: u64,
    /// Kernel release.
    pub kernel: String,
    /// Block devices (/sys/block, loop and ram devices left out).
    pub devices: Vec<Device>,
    /// The data directory the lab put its files in.
    pub data_dir: String,
    /// Its filesystem type and source, from /proc/mounts.
    pub data_fs: String,
    /// Measured on a file in the data directory.
    pub storage: StorageProbe,
}

/// One block device.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// Kernel name, e.g. `vda`.
    pub name: String,
    /// Model string, where the driver gives one.
    pub model: String,
    /// Size in bytes.
    pub size_bytes: u64,
    /// Whether it reports itself rotational (virtual disks often do).
    pub rotational: bool,
}

/// fsync latency and random-read IOPS of the data directory's device.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageProbe {
    /// Median time of a 4 KiB write followed by fdatasync, µs.
    pub fsync_p50_us: f64,
    /// 99th percentile of the same, µs.
    pub fsync_p99_us: f64,
    /// Samples taken.
    pub fsync_samples: usize,
    /// Random 4 KiB reads per second, one at a time, on a file of `read_file_bytes`.
    pub random_read_iops: f64,
    /// Size of the file read.
    pub read_file_bytes: u64,
    /// `direct` (O_DIRECT: the device) or `buffered` (O_DIRECT refused, e.g. tmpfs: the page cache).
    pub read_mode: String,
}

impl MachineInfo {
    /// Describes this machine and probes `data_dir` (smaller probes with `quick`).
    pub fn probe(data_dir: &Path, quick: bool) -> std::io::Result<Self> {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')))
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let memory_bytes = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024);
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .unwrap_or_default()
            .trim()
            .to_owned();
        let data_dir = std::fs::canonicalize(data_dir)?;
        let storage = probe_storage(&data_dir, quick)?;
        Ok(Self {
            cpu_model,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_bytes,
            kernel,
            devices: block_devices(),
            data_fs: filesystem_of(&data_dir),
            data_dir: data_dir.display().to_string(),
            storage,
        })
    }

    /// The markdown lines of the report's machine section.
    pub fn markdown(&self) -> String {
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let devices: Vec<String> = self
            .devices
            .iter()
            .map(|d| {
                format!(
                    "{} ({}{:.0} GiB, {})",
                    d.name,
                    if d.model.is_empty() {
                        String::new()
                    } else {
                        format!("{}, ", d.model)
                    },
                    gib(d.size_bytes),
                    if d.rotational {
                        "rotational"
                    } else {
                        "non-rotational"
                    }
                )
            })
            .collect();
        let s = &self.storage;
        format!(
            "- CPU: {} ({} cores available)\n- memory: {:.1} GiB; kernel {}\n- devices: {}\n- data directory: {} on {}\n- fsync (4 KiB write + fdatasync): p50 {:.0} µs, p99 {:.0} µs ({} samples)\n- random 4 KiB reads, one at a time ({}): {:.0} IOPS over a {} MiB file\n",
            self.cpu_model,
            self.cores,
            gib(self.memory_bytes),
            self.kernel,
            if devices.is_empty() { "none listed".into() } else { devices.join(", ") },
            self.data_dir,
            self.data_fs,
            s.fsync_p50_us,
            s.fsync_p99_us,
            s.fsync_samples,
            s.read_mode,
            s.random_read_iops,
            s.read_file_bytes >> 20,
        )
    }
}

fn block_devices() -> Vec<Device> {
    let Ok(entries) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut devices: Vec<Device> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if ["loop", "ram", "zram", "dm-"]
                .iter()
                .any(|p| name.starts_with(p))
            {
                return None;
            }
            let read = |f: &str| std::fs::read_to_string(e.path().join(f)).unwrap_or_default();
            Some(Device {
                model: read("device/model").trim().to_owned(),
                size_bytes: read("size").trim().parse::<u64>().unwrap_or(0) * 512,
                rotational: read("queue/rotational").trim() == "1",
                name,
            })
        })
        .collect();
    devices.sort_by(|a, b| a.name.cmp(&b.name));
    devices
}

/// `fstype source` of the mount holding `path` (the longest mount point that prefixes it).
fn filesystem_of(path: &Path) -> String {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (source, point, fstype) = (f.next()?, f.next()?, f.next()?);
            path.starts_with(point)
                .then(|| (point.len(), format!("{fstype} ({source})")))
        })
        .max_by_key(|(len, _)| *len)
        .map_or_else(|| "unknown".into(), |(_, fs)| fs)
}

fn probe_storage(dir: &Path, quick: bool) -> std::io::Result<StorageProbe> {
    let probe = tempfile::Builder::new()
        .prefix("strata-lab-probe-")
        .tempdir_in(dir)?;
    let samples = if quick { 30 } else { 200 };
    let mut file = File::create(probe.path().join("fsync"))?;
    let block = vec![0x5au8; BLOCK];
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let started = Instant::now();
        file.write_all(&block)?;
        file.sync_data()?;
        times.push(started.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    let pick = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let (fsync_p50_us, fsync_p99_us) = (pick(0.5), pick(0.99));

    let size: u64 = if quick { 32 << 20 } else { 256 << 20 };
    let path = probe.path().join("reads");
    {
        let mut f = File::create(&path)?;
        let chunk = vec![0xa5u8; 1 << 20];
        for _ in 0..size >> 20 {
            f.write_all(&chunk)?;
        }
        f.sync_all()?;
    }
    let (file, read_mode) = match open_direct(&path) {
        Ok(f) => (f, "direct"),
        Err(_) => {
            let f = File::open(&path)?;
            let _ = rustix::fs::fadvise(&f, 0, None, rustix::fs::Advice::DontNeed);
            (f, "buffered")
        }
    };
    // O_DIRECT needs a buffer aligned to the logical block size: 4 KiB covers it.
    let mut raw = vec![0u8; 2 * BLOCK];
    let offset = raw.as_ptr().align_offset(BLOCK);
    let buf = &mut raw[offset..offset + BLOCK];
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let blocks = size / BLOCK as u64;
    let span = Duration::from_millis(if quick { 300 } else { 2000 });
    let started = Instant::now();
    let mut reads = 0u64;
    while started.elapsed() < span {
        file.read_exact_at(buf, rng.gen_range(0..blocks) * BLOCK as u64)?;
        reads += 1;
    }
    Ok(StorageProbe {
        fsync_p50_us,
        fsync_p99_us,
        fsync_samples: samples,
        random_read_iops: reads as f64 / started.elapsed().as_secs_f64(),
        read_file_bytes: size,
        read_mode: read_mode.into(),
    })
}

fn open_direct(path: &Path) -> std::io::Result<File> {
    let fd = rustix::fs::open(
        path,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECT | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )?;
    Ok(File::from(fd))
}
