// lstm: an LSTM over 10 steps as lax.scan (a stablehlo.while), the final state and every output (conformance/programs/sources.py, jax 0.10.2)
module @jit_lstm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10x4xf32>, %arg1: tensor<10x24xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<10x6xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<10x6xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:6 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %arg1, %iterArg_2 = %c, %iterArg_3 = %0, %iterArg_4 = %0, %iterArg_5 = %1) : tensor<10x4xf32>, tensor<10x24xf32>, tensor<i32>, tensor<6xf32>, tensor<6xf32>, tensor<10x6xf32>
    cond {
      %c_6 = stablehlo.constant dense<10> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_2, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_2) : (tensor<10x4xf32>, tensor<i32>) -> tensor<4xf32>
      %4:3 = func.call @closed_call(%iterArg_1, %iterArg_3, %iterArg_4, %3) : (tensor<10x24xf32>, tensor<6xf32>, tensor<6xf32>, tensor<4xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
      %5 = func.call @dynamic_update_index_in_dim(%iterArg_5, %4#2, %iterArg_2) : (tensor<10x6xf32>, tensor<6xf32>, tensor<i32>) -> tensor<10x6xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_2, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_1, %6, %4#0, %4#1, %5 : tensor<10x4xf32>, tensor<10x24xf32>, tensor<i32>, tensor<6xf32>, tensor<6xf32>, tensor<10x6xf32>
    }
    return %2#3, %2#4, %2#5 : tensor<6xf32>, tensor<6xf32>, tensor<10x6xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<10x4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 4] : (tensor<10x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @closed_call(%arg0: tensor<10x24xf32>, %arg1: tensor<6xf32>, %arg2: tensor<6xf32>, %arg3: tensor<4xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
    %0 = stablehlo.concatenate %arg3, %arg1, dim = 0 : (tensor<4xf32>, tensor<6xf32>) -> tensor<10xf32>
    %1 = stablehlo.dot_general %0, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<10xf32>, tensor<10x24xf32>) -> tensor<24xf32>
    %2 = stablehlo.slice %1 [0:6] : (tensor<24xf32>) -> tensor<6xf32>
    %3 = stablehlo.slice %1 [6:12] : (tensor<24xf32>) -> tensor<6xf32>
    %4 = stablehlo.slice %1 [12:18] : (tensor<24xf32>) -> tensor<6xf32>
    %5 = stablehlo.slice %1 [18:24] : (tensor<24xf32>) -> tensor<6xf32>
    %6 = stablehlo.negate %3 : tensor<6xf32>
    %7 = stablehlo.exponential %6 : tensor<6xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %9 = stablehlo.add %8, %7 : tensor<6xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %11 = stablehlo.divide %10, %9 : tensor<6xf32>
    %12 = stablehlo.multiply %11, %arg2 : tensor<6xf32>
    %13 = stablehlo.negate %2 : tensor<6xf32>
    %14 = stablehlo.exponential %13 : tensor<6xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %16 = stablehlo.add %15, %14 : tensor<6xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %18 = stablehlo.divide %17, %16 : tensor<6xf32>
    %19 = stablehlo.tanh %4 : tensor<6xf32>
    %20 = stablehlo.multiply %18, %19 : tensor<6xf32>
    %21 = stablehlo.add %12, %20 : tensor<6xf32>
    %22 = stablehlo.negate %5 : tensor<6xf32>
    %23 = stablehlo.exponential %22 : tensor<6xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %25 = stablehlo.add %24, %23 : tensor<6xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %27 = stablehlo.divide %26, %25 : tensor<6xf32>
    %28 = stablehlo.tanh %21 : tensor<6xf32>
    %29 = stablehlo.multiply %27, %28 : tensor<6xf32>
    return %29, %21, %29 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<10x6xf32>, %arg1: tensor<6xf32>, %arg2: tensor<i32>) -> tensor<10x6xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<10x6xf32>, tensor<1x6xf32>, tensor<i32>, tensor<i32>) -> tensor<10x6xf32>
    return %1 : tensor<10x6xf32>
  }
}
