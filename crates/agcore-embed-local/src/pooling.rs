//! Pooling: one vector per text from the encoder's per-token hidden states.

use candle_core::{D, Tensor};

use crate::options::Pooling;

/// Pools `hidden` (`(batch, tokens, hidden)`, f32) into `(batch, hidden)`.
///
/// `mask` is the attention mask as f32, `(batch, tokens)`: 1 for real
/// tokens, 0 for padding. [`Pooling::Mean`] averages the real tokens only
/// (sentence-transformers' `mean_tokens`: sum of masked states over the
/// number of real tokens, the count clamped to at least 1e-9);
/// [`Pooling::Cls`] takes token 0.
///
/// # Errors
/// A candle error when the shapes do not agree.
pub(crate) fn pool(
    hidden: &Tensor,
    mask: &Tensor,
    pooling: Pooling,
) -> candle_core::Result<Tensor> {
    match pooling {
        Pooling::Mean => {
            let mask = mask.unsqueeze(D::Minus1)?; // (batch, tokens, 1)
            let summed = hidden.broadcast_mul(&mask)?.sum(1)?; // (batch, hidden)
            let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?; // (batch, 1)
            summed.broadcast_div(&counts)
        }
        Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1),
    }
}

/// Pools flat row-major hidden states (`(rows, width, dim)`, f32) into one
/// vector of `dim` per row, as [`pool`] does: [`Pooling::Mean`] averages the
/// positions where `mask` (`(rows, width)`, 1 real, 0 padding) is set (a row
/// with none pools to zeros); [`Pooling::Cls`] takes position 0. Positions
/// missing from a short `hidden` count as zeros.
#[cfg_attr(not(feature = "onnx"), allow(dead_code))]
pub(crate) fn pool_rows(
    hidden: &[f32],
    mask: &[u32],
    rows: usize,
    width: usize,
    dim: usize,
    pooling: Pooling,
) -> Vec<Vec<f32>> {
    (0..rows)
        .map(|row| {
            let mut out = vec![0.0f32; dim];
            let state = |pos: usize| {
                let start = (row * width + pos) * dim;
                hidden.get(start..start + dim).unwrap_or(&[])
            };
            match pooling {
                Pooling::Cls => {
                    for (o, h) in out.iter_mut().zip(state(0)) {
                        *o = *h;
                    }
                }
                Pooling::Mean => {
                    let mut count = 0usize;
                    for pos in 0..width {
                        if mask.get(row * width + pos).copied().unwrap_or(0) == 0 {
                            continue;
                        }
                        count += 1;
                        for (o, h) in out.iter_mut().zip(state(pos)) {
                            *o += *h;
                        }
                    }
                    if count > 0 {
                        let n = count as f32;
                        for o in &mut out {
                            *o /= n;
                        }
                    }
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use candle_core::Device;

    use super::*;

    fn hidden() -> Tensor {
        // Two texts, three token positions, two dimensions. The second text
        // has one padded position holding a huge value that must not leak.
        let data = [
            1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, //
            10.0, 20.0, 30.0, 40.0, 1e6, 1e6,
        ];
        Tensor::from_slice(&data, (2, 3, 2), &Device::Cpu).unwrap()
    }

    #[test]
    fn mean_pooling_ignores_padding() {
        let mask =
            Tensor::from_slice(&[1.0f32, 1.0, 1.0, 1.0, 1.0, 0.0], (2, 3), &Device::Cpu).unwrap();
        let pooled = pool(&hidden(), &mask, Pooling::Mean)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        assert_eq!(pooled, vec![vec![3.0, 4.0], vec![20.0, 30.0]]);
    }

    #[test]
    fn cls_pooling_takes_the_first_token() {
        let mask = Tensor::ones((2, 3), candle_core::DType::F32, &Device::Cpu).unwrap();
        let pooled = pool(&hidden(), &mask, Pooling::Cls)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        assert_eq!(pooled, vec![vec![1.0, 2.0], vec![10.0, 20.0]]);
    }

    #[test]
    fn slice_pooling_agrees_with_tensor_pooling() {
        let data = hidden().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let mask = [1u32, 1, 1, 1, 1, 0];
        let mean = pool_rows(&data, &mask, 2, 3, 2, Pooling::Mean);
        assert_eq!(mean, vec![vec![3.0, 4.0], vec![20.0, 30.0]]);
        let cls = pool_rows(&data, &mask, 2, 3, 2, Pooling::Cls);
        assert_eq!(cls, vec![vec![1.0, 2.0], vec![10.0, 20.0]]);
        let none = pool_rows(&data, &[1, 0, 0, 0, 0, 0], 2, 3, 2, Pooling::Mean);
        assert_eq!(none, vec![vec![1.0, 2.0], vec![0.0, 0.0]]);
    }

    #[test]
    fn an_all_padding_row_pools_to_zero_not_nan() {
        let mask =
            Tensor::from_slice(&[1.0f32, 0.0, 0.0, 0.0, 0.0, 0.0], (2, 3), &Device::Cpu).unwrap();
        let pooled = pool(&hidden(), &mask, Pooling::Mean)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        assert_eq!(pooled, vec![vec![1.0, 2.0], vec![0.0, 0.0]]);
    }
}
