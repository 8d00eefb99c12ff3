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
