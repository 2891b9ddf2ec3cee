// sharded: data-parallel training over 8 devices with shard_map: each device's gradient of a squared loss on its shard of the batch summed with psum, the activations gathered with all_gather, a ring shift with ppermute (conformance/programs/sources.py, jax 0.10.2)
module @jit_sharded attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["batch"=8]> {stablehlo.mesh = {axes = [{name = "batch", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x4xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<16x3xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<4x3xf32> {jax.result_info = "result[1]"}, tensor<16x3xf32> {jax.result_info = "result[2]"}, tensor<16x3xf32> {jax.result_info = "result[3]"}) {
    %0:4 = sdy.manual_computation(%arg0, %arg1, %arg2) in_shardings=[<@mesh, [{"batch"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"batch"}, {}]>] out_shardings=[<@mesh, []>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"batch"}, {}]>] manual_axes={"batch"} (%arg3: tensor<2x4xf32>, %arg4: tensor<4x3xf32>, %arg5: tensor<2x3xf32>) {
      %1 = stablehlo.dot_general %arg3, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
      %2 = stablehlo.tanh %1 : tensor<2x3xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
      %4 = stablehlo.subtract %3, %2 : tensor<2x3xf32>
      %5 = stablehlo.subtract %2, %arg5 : tensor<2x3xf32>
      %6 = stablehlo.multiply %5, %5 : tensor<2x3xf32>
      %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
      %8 = stablehlo.multiply %7, %5 : tensor<2x3xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
      %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
      %11 = stablehlo.multiply %10, %8 : tensor<2x3xf32>
      %12 = stablehlo.multiply %11, %4 : tensor<2x3xf32>
      %13 = stablehlo.multiply %12, %2 : tensor<2x3xf32>
      %14 = stablehlo.add %12, %13 : tensor<2x3xf32>
      %15 = stablehlo.dot_general %14, %arg3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
      %16 = stablehlo.transpose %15, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
      %17 = stablehlo.dot_general %arg3, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
      %18 = stablehlo.tanh %17 : tensor<2x3xf32>
      %19 = "stablehlo.all_reduce"(%9) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
        %29 = stablehlo.add %arg6, %arg7 : tensor<f32>
        stablehlo.return %29 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_3 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %20 = stablehlo.divide %19, %cst_3 : tensor<f32>
      %21 = "stablehlo.all_reduce"(%16) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
        %29 = stablehlo.add %arg6, %arg7 : tensor<f32>
        stablehlo.return %29 : tensor<f32>
      }) : (tensor<4x3xf32>) -> tensor<4x3xf32>
      %cst_4 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
      %23 = stablehlo.divide %21, %22 : tensor<4x3xf32>
      %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %24 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
      %25 = stablehlo.multiply %24, %23 : tensor<4x3xf32>
      %26 = stablehlo.subtract %arg4, %25 : tensor<4x3xf32>
      %27 = "stablehlo.all_gather"(%18) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<2x3xf32>) -> tensor<16x3xf32>
      %28 = "stablehlo.collective_permute"(%18) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
      sdy.return %20, %26, %27, %28 : tensor<f32>, tensor<4x3xf32>, tensor<16x3xf32>, tensor<2x3xf32>
    } : (tensor<16x4xf32>, tensor<4x3xf32>, tensor<16x3xf32>) -> (tensor<f32>, tensor<4x3xf32>, tensor<16x3xf32>, tensor<16x3xf32>)
    return %0#0, %0#1, %0#2, %0#3 : tensor<f32>, tensor<4x3xf32>, tensor<16x3xf32>, tensor<16x3xf32>
  }
}
