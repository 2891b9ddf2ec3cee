// fft_conv: an FFT convolution: rfft of signal and zero-padded kernel, the product, irfft; with the direct convolution it must equal, and a complex fft round trip (conformance/programs/sources.py, jax 0.10.2)
module @jit_fft_conv attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x32xf32>, %arg1: tensor<4x7xf32>) -> (tensor<4x38xf32> {jax.result_info = "result[0]"}, tensor<4x38xf32> {jax.result_info = "result[1]"}, tensor<4x20xf32> {jax.result_info = "result[2]"}, tensor<4x32xcomplex<f32>> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = call @_pad(%arg0, %c) : (tensor<4x32xf32>, tensor<i32>) -> tensor<4x38xf32>
    %1 = call @fft(%0) : (tensor<4x38xf32>) -> tensor<4x20xcomplex<f32>>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %2 = call @_pad_0(%arg1, %c_0) : (tensor<4x7xf32>, tensor<i32>) -> tensor<4x38xf32>
    %3 = call @fft(%2) : (tensor<4x38xf32>) -> tensor<4x20xcomplex<f32>>
    %4 = stablehlo.multiply %1, %3 : tensor<4x20xcomplex<f32>>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = call @_pad_1(%4, %c_1) : (tensor<4x20xcomplex<f32>>, tensor<i32>) -> tensor<4x20xcomplex<f32>>
    %6 = call @fft_2(%5) : (tensor<4x20xcomplex<f32>>) -> tensor<4x38xf32>
    %7 = call @convolve(%arg0, %arg1) : (tensor<4x32xf32>, tensor<4x7xf32>) -> tensor<4x38xf32>
    %8 = stablehlo.convert %arg0 : (tensor<4x32xf32>) -> tensor<4x32xcomplex<f32>>
    %9 = call @fft_3(%8) : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>>
    %10 = call @fft_4(%9) : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>>
    %11 = stablehlo.abs %4 : (tensor<4x20xcomplex<f32>>) -> tensor<4x20xf32>
    return %6, %7, %11, %10 : tensor<4x38xf32>, tensor<4x38xf32>, tensor<4x20xf32>, tensor<4x32xcomplex<f32>>
  }
  func.func private @_pad(%arg0: tensor<4x32xf32>, %arg1: tensor<i32>) -> tensor<4x38xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 6], interior = [0, 0] : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x38xf32>
    return %1 : tensor<4x38xf32>
  }
  func.func private @fft(%arg0: tensor<4x38xf32>) -> tensor<4x20xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [38] : (tensor<4x38xf32>) -> tensor<4x20xcomplex<f32>>
    return %0 : tensor<4x20xcomplex<f32>>
  }
  func.func private @_pad_0(%arg0: tensor<4x7xf32>, %arg1: tensor<i32>) -> tensor<4x38xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 31], interior = [0, 0] : (tensor<4x7xf32>, tensor<f32>) -> tensor<4x38xf32>
    return %1 : tensor<4x38xf32>
  }
  func.func private @_pad_1(%arg0: tensor<4x20xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<4x20xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x20xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4x20xcomplex<f32>>
    return %1 : tensor<4x20xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<4x20xcomplex<f32>>) -> tensor<4x38xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [38] : (tensor<4x20xcomplex<f32>>) -> tensor<4x38xf32>
    return %0 : tensor<4x38xf32>
  }
  func.func private @convolve(%arg0: tensor<4x32xf32>, %arg1: tensor<4x7xf32>) -> tensor<4x38xf32> {
    %0 = call @_conv(%arg0, %arg1) : (tensor<4x32xf32>, tensor<4x7xf32>) -> tensor<4x38xf32>
    return %0 : tensor<4x38xf32>
  }
  func.func private @_conv(%arg0: tensor<4x32xf32>, %arg1: tensor<4x7xf32>) -> tensor<4x38xf32> {
    %0 = call @_flip(%arg1) : (tensor<4x7xf32>) -> tensor<4x7xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 3] : (tensor<4x32xf32>) -> tensor<4x1x1x32xf32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 3] : (tensor<4x7xf32>) -> tensor<4x1x1x7xf32>
    %3 = stablehlo.transpose %1, dims = [1, 0, 2, 3] : (tensor<4x1x1x32xf32>) -> tensor<1x4x1x32xf32>
    %4 = stablehlo.reshape %3 : (tensor<1x4x1x32xf32>) -> tensor<1x4x32xf32>
    %5 = stablehlo.reshape %2 : (tensor<4x1x1x7xf32>) -> tensor<4x1x7xf32>
    %6 = stablehlo.convolution(%4, %5) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[6, 6]], lhs_dilate = [1], rhs_dilate = [1], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x32xf32>, tensor<4x1x7xf32>) -> tensor<1x4x38xf32>
    %7 = stablehlo.reshape %6 : (tensor<1x4x38xf32>) -> tensor<1x4x1x38xf32>
    %8 = stablehlo.transpose %7, dims = [1, 0, 2, 3] : (tensor<1x4x1x38xf32>) -> tensor<4x1x1x38xf32>
    %9 = stablehlo.reshape %8 : (tensor<4x1x1x38xf32>) -> tensor<4x38xf32>
    return %9 : tensor<4x38xf32>
  }
  func.func private @_flip(%arg0: tensor<4x7xf32>) -> tensor<4x7xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<4x7xf32>
    return %0 : tensor<4x7xf32>
  }
  func.func private @fft_3(%arg0: tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [32] : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>>
    return %0 : tensor<4x32xcomplex<f32>>
  }
  func.func private @fft_4(%arg0: tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [32] : (tensor<4x32xcomplex<f32>>) -> tensor<4x32xcomplex<f32>>
    return %0 : tensor<4x32xcomplex<f32>>
  }
}
