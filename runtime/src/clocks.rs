//! The GPU's clocks, power and temperature, read through NVML while a benchmark runs.
//!
//! A Hopper GPU under a random-input GEMM is power-limited: its SM clock falls from the boost
//! clock within seconds, so one timing hides whether it was taken at boost (*burst*) or at the
//! clock the board holds under load (*sustained*). [`Clocks::sample`] reads what the timing
//! regimes ([`crate::regime`]) record beside every sample.
//!
//! NVML numbers devices by PCI order, CUDA by its own order (and `CUDA_VISIBLE_DEVICES`): the
//! device is found by its PCI bus id, which both agree on.

use cudarc::driver::sys::CUdevice_attribute;
use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};

use crate::device::{Device, guard};

/// One reading.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// SM clock, MHz.
    pub sm_mhz: u32,
    /// Memory clock, MHz.
    pub mem_mhz: u32,
    /// Board power, W.
    pub power_w: f64,
    /// GPU temperature, °C.
    pub temp_c: u32,
    /// Whether a power or thermal limit is holding the clock down right now.
    pub limited: bool,
}

/// Errors opening NVML or reading it.
#[derive(Debug, thiserror::Error)]
pub enum ClocksError {
    /// libnvidia-ml could not be loaded or initialised.
    #[error("NVML unavailable: {0}")]
    Nvml(#[from] nvml_wrapper::error::NvmlError),
    /// The device's PCI address could not be read.
    #[error(transparent)]
    Device(#[from] crate::device::DeviceError),
}

/// NVML, opened for one CUDA device.
pub struct Clocks {
    nvml: Nvml,
    pci_bus_id: String,
    /// The SM clock the board may boost to, MHz.
    pub max_sm_mhz: u32,
}

impl std::fmt::Debug for Clocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clocks")
            .field("pci_bus_id", &self.pci_bus_id)
            .field("max_sm_mhz", &self.max_sm_mhz)
            .finish()
    }
}

/// NVML's form of a PCI address (`00000000:1B:00.0`).
pub fn pci_bus_id(domain: i32, bus: i32, device: i32) -> String {
    format!("{domain:08X}:{bus:02X}:{device:02X}.0")
}

impl Clocks {
    /// Opens NVML for `dev` (the driver's versioned library name first: the unversioned one is a
    /// development link that a driver-only machine lacks).
    pub fn open(dev: &Device) -> Result<Self, ClocksError> {
        let nvml = Nvml::builder()
            .lib_path("libnvidia-ml.so.1".as_ref())
            .init()
            .or_else(|_| Nvml::init())?;
        let ctx = dev.context();
        let attr = |a| guard("cuDeviceGetAttribute", || ctx.attribute(a));
        let id = pci_bus_id(
            attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
            attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
            attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?,
        );
        let max_sm_mhz = nvml
            .device_by_pci_bus_id(id.as_str())?
            .max_clock_info(Clock::SM)?;
        Ok(Self {
            nvml,
            pci_bus_id: id,
            max_sm_mhz,
        })
    }

    /// Reads the clocks, power and temperature now.
    pub fn sample(&self) -> Result<Sample, ClocksError> {
        let d = self.nvml.device_by_pci_bus_id(self.pci_bus_id.as_str())?;
        let reasons = d.current_throttle_reasons().map(|r| r.bits()).unwrap_or(0);
        // SW power cap (0x4), HW slowdown (0x8), SW thermal (0x20), HW thermal (0x40), HW power
        // brake (0x80): the limits that hold the clock below what the load asks for.
        let limited = reasons & (0x4 | 0x8 | 0x20 | 0x40 | 0x80) != 0;
        Ok(Sample {
            sm_mhz: d.clock_info(Clock::SM)?,
            mem_mhz: d.clock_info(Clock::Memory)?,
            power_w: f64::from(d.power_usage()?) / 1000.0,
            temp_c: d.temperature(TemperatureSensor::Gpu)?,
            limited,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_bus_id_is_nvml_form() {
        assert_eq!(pci_bus_id(0, 0x1b, 0), "00000000:1B:00.0");
        assert_eq!(pci_bus_id(1, 200, 3), "00000001:C8:03.0");
    }
}
