//! The decay curves of `function_score`'s decay functions (`gauss`,
//! `exp`, `linear`): a score in (0, 1] from a distance, equal to `decay`
//! at `scale` beyond `offset`.

/// A decay curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curve {
    Gauss,
    Exp,
    Linear,
}

impl Curve {
    /// The decay at `distance` from the origin.
    pub fn score(self, distance: f64, scale: f64, offset: f64, decay: f64) -> f64 {
        let d = (distance - offset).max(0.0);
        match self {
            Curve::Gauss => {
                let sigma_sq = -scale * scale / (2.0 * decay.ln());
                (-(d * d) / (2.0 * sigma_sq)).exp()
            }
            Curve::Exp => (decay.ln() / scale * d).exp(),
            Curve::Linear => {
                let s = scale / (1.0 - decay);
                ((s - d) / s).max(0.0)
            }
        }
    }
}
