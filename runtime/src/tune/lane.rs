//! The parent's side of one GPU: a worker process (started on demand, restarted after a crash,
//! a fault or a hang) and the watchdog around every request.
//!
//! A request is written to the worker's stdin; a reader thread forwards the worker's tagged
//! stdout lines over a channel, and the parent waits on it with a timeout. On timeout the worker
//! is killed (SIGKILL to that one process, which frees its CUDA context) and the request fails
//! as [`LaneError::Timeout`]; when the worker's stdout closes without an answer the request
//! fails as [`LaneError::Died`] with its exit status and the last lines of its stderr. Either
//! way the next request starts a fresh worker and sends it the `Setup` again.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::probe::{GpuInfo, visible_devices_for};
use super::protocol::{Reply, Request, WORKER_ENV, decode_reply, encode_request};
use super::record::ReferenceRecord;

/// How to start a worker: by default this very executable, no arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The executable started as a worker.
    pub program: PathBuf,
    /// Command-line arguments passed to it.
    pub args: Vec<String>,
    /// Extra environment (the tuner adds `TESSEL_TUNE_WORKER=1` and `CUDA_VISIBLE_DEVICES`).
    pub env: Vec<(String, String)>,
}

impl WorkerCommand {
    /// `std::env::current_exe()`.
    pub fn current_exe() -> std::io::Result<WorkerCommand> {
        Ok(WorkerCommand {
            program: std::env::current_exe()?,
            args: Vec::new(),
            env: Vec::new(),
        })
    }
}

/// Why a request got no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaneError {
    /// No answer within the watchdog's time.
    #[error("no answer within {0:?}: worker killed")]
    Timeout(Duration),
    /// The worker exited without answering.
    #[error("worker died: {0}")]
    Died(String),
    /// The worker could not set up.
    #[error("worker setup failed: {0}")]
    Setup(String),
}

struct Proc {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Result<Reply, String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

/// One GPU and its worker.
pub struct Lane {
    /// Index of the GPU among the parent's visible GPUs.
    pub gpu: usize,
    cmd: WorkerCommand,
    setup: Request,
    setup_timeout: Duration,
    proc: Option<Proc>,
    /// Workers started so far.
    pub started: usize,
    /// Set when a worker became ready and not yet taken by [`Lane::take_ready`].
    ready: Option<(GpuInfo, Option<ReferenceRecord>)>,
}

const STDERR_LINES: usize = 12;

impl Lane {
    /// A lane for GPU `gpu`; `setup` is sent to every worker it starts.
    pub fn new(gpu: usize, cmd: WorkerCommand, setup: Request, setup_timeout: Duration) -> Lane {
        Lane {
            gpu,
            cmd,
            setup,
            setup_timeout,
            proc: None,
            started: 0,
            ready: None,
        }
    }

    /// What the last worker reported when it became ready (once).
    pub fn take_ready(&mut self) -> Option<(GpuInfo, Option<ReferenceRecord>)> {
        self.ready.take()
    }

    fn spawn(&mut self) -> Result<(), LaneError> {
        let parent = std::env::var("CUDA_VISIBLE_DEVICES").ok();
        let mut cmd = Command::new(&self.cmd.program);
        cmd.args(&self.cmd.args)
            .envs(self.cmd.env.iter().map(|(k, v)| (k, v)))
            .env(WORKER_ENV, "1")
            .env(
                "CUDA_VISIBLE_DEVICES",
                visible_devices_for(self.gpu, parent.as_deref()),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| {
            LaneError::Setup(format!("cannot start {}: {e}", self.cmd.program.display()))
        })?;
        self.started += 1;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(LaneError::Setup("worker pipes missing".into()));
        };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(r) = decode_reply(&line)
                    && tx.send(r).is_err()
                {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let t = tail.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut q = t.lock().unwrap_or_else(|e| e.into_inner());
                if q.len() == STDERR_LINES {
                    q.pop_front();
                }
                q.push_back(line);
            }
        });
        self.proc = Some(Proc {
            child,
            stdin,
            rx,
            stderr: tail,
        });
        let setup = self.setup.clone();
        match self.exchange(&setup, self.setup_timeout) {
            Ok(Reply::Ready { gpu, reference }) => {
                self.ready = Some((gpu, reference));
                Ok(())
            }
            Ok(Reply::SetupFailed { message }) => {
                self.retire();
                Err(LaneError::Setup(message))
            }
            Ok(other) => {
                self.retire();
                Err(LaneError::Setup(format!("unexpected answer {other:?}")))
            }
            Err(e) => Err(LaneError::Setup(e.to_string())),
        }
    }

    /// Sends `req` and waits up to `timeout` for the answer; see the module doc.
    pub fn request(&mut self, req: &Request, timeout: Duration) -> Result<Reply, LaneError> {
        if self.proc.is_none() {
            self.spawn()?;
        }
        self.exchange(req, timeout)
    }

    fn exchange(&mut self, req: &Request, timeout: Duration) -> Result<Reply, LaneError> {
        let Some(p) = self.proc.as_mut() else {
            return Err(LaneError::Died("no worker".into()));
        };
        let line = encode_request(req) + "\n";
        if p.stdin
            .write_all(line.as_bytes())
            .and_then(|_| p.stdin.flush())
            .is_err()
        {
            return Err(LaneError::Died(self.bury()));
        }
        let start = Instant::now();
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            let p = self
                .proc
                .as_mut()
                .ok_or(LaneError::Died("no worker".into()))?;
            match p.rx.recv_timeout(left) {
                Ok(Ok(reply)) => return Ok(reply),
                // A garbled tagged line: keep waiting for a good one until the deadline.
                Ok(Err(_)) => continue,
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(LaneError::Timeout(timeout));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(LaneError::Died(self.bury())),
            }
        }
    }

    /// Reaps a worker whose stdout closed; returns its exit status and stderr tail.
    fn bury(&mut self) -> String {
        let Some(mut p) = self.proc.take() else {
            return "no worker".into();
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        let status = loop {
            match p.child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    let _ = p.child.kill();
                    break p
                        .child
                        .wait()
                        .map(|s| format!("{s} (killed)"))
                        .unwrap_or_else(|e| e.to_string());
                }
            }
        };
        // Give the stderr reader a moment to drain the last lines.
        std::thread::sleep(Duration::from_millis(50));
        let tail: Vec<String> = p
            .stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect();
        if tail.is_empty() {
            status
        } else {
            format!("{status}; stderr: {}", tail.join(" | "))
        }
    }

    /// Kills the worker at once (a hang).
    pub fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
    }

    /// Ends the worker politely (stdin closed, a few seconds to exit), then by force.
    pub fn retire(&mut self) {
        if let Some(p) = self.proc.take() {
            let Proc {
                mut child, stdin, ..
            } = p;
            drop(stdin);
            let deadline = Instant::now() + Duration::from_secs(3);
            loop {
                match child.try_wait() {
                    Ok(Some(_)) => return,
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    _ => break,
                }
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Whether a worker is running.
    pub fn alive(&self) -> bool {
        self.proc.is_some()
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        self.retire();
    }
}
