// attention: a transformer block: causal softmax attention, residual, layer norm and GELU (conformance/programs/sources.py, jax 0.10.2)
module @jit_attention attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8x8xf32>) -> (tensor<6x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x8xf32>) -> tensor<6x8xf32>
    %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x8xf32>) -> tensor<6x8xf32>
    %2 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x8xf32>) -> tensor<6x8xf32>
    %3 = stablehlo.transpose %1, dims = [1, 0] : (tensor<6x8xf32>) -> tensor<8x6xf32>
    %4 = stablehlo.dot_general %0, %3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
    %cst = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %5 = stablehlo.sqrt %cst : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %7 = stablehlo.divide %4, %6 : tensor<6x6xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %9 = call @tril(%8) : (tensor<6x6xi1>) -> tensor<6x6xi1>
    %cst_0 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %10 = call @_where(%9, %7, %cst_0) : (tensor<6x6xi1>, tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.maximum across dimensions = [1] : (tensor<6x6xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %13 = stablehlo.maximum %12, %11 : tensor<6xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x6xf32>
    %16 = stablehlo.subtract %10, %15 : tensor<6x6xf32>
    %17 = stablehlo.exponential %16 : tensor<6x6xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.reduce(%17 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<6x6xf32>, tensor<f32>) -> tensor<6xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x6xf32>
    %21 = stablehlo.divide %17, %20 : tensor<6x6xf32>
    %22 = stablehlo.dot_general %21, %2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %23 = stablehlo.add %arg0, %22 : tensor<6x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_4) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_5 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %27 = stablehlo.divide %25, %26 : tensor<6x1xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %29 = stablehlo.subtract %23, %28 : tensor<6x8xf32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %30 = call @_var(%23, %c_6) : (tensor<6x8xf32>, tensor<i32>) -> tensor<6x1xf32>
    %cst_7 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %32 = stablehlo.add %30, %31 : tensor<6x1xf32>
    %33 = stablehlo.sqrt %32 : tensor<6x1xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %35 = stablehlo.divide %29, %34 : tensor<6x8xf32>
    %36 = stablehlo.multiply %35, %35 : tensor<6x8xf32>
    %37 = stablehlo.multiply %36, %35 : tensor<6x8xf32>
    %cst_8 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %39 = stablehlo.multiply %38, %37 : tensor<6x8xf32>
    %40 = stablehlo.add %35, %39 : tensor<6x8xf32>
    %cst_9 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %42 = stablehlo.multiply %41, %40 : tensor<6x8xf32>
    %43 = stablehlo.tanh %42 : tensor<6x8xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %45 = stablehlo.add %44, %43 : tensor<6x8xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %47 = stablehlo.multiply %46, %45 : tensor<6x8xf32>
    %48 = stablehlo.multiply %35, %47 : tensor<6x8xf32>
    return %48 : tensor<6x8xf32>
  }
  func.func private @tril(%arg0: tensor<6x6xi1>) -> tensor<6x6xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x6xi32>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi32>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<6x6xi1>, tensor<6x6xi1>
    return %6 : tensor<6x6xi1>
  }
  func.func private @_where(%arg0: tensor<6x6xi1>, %arg1: tensor<6x6xf32>, %arg2: tensor<f32>) -> tensor<6x6xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<6x6xi1>, tensor<6x6xf32>
    return %2 : tensor<6x6xf32>
  }
  func.func private @_var(%arg0: tensor<6x8xf32>, %arg1: tensor<i32>) -> tensor<6x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<6x8xf32>
    %6 = chlo.square %5 : tensor<6x8xf32> -> tensor<6x8xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<6x1xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = call @_where_0(%13, %12, %cst_4) : (tensor<i1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x1xf32>
    return %14 : tensor<6x1xf32>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<6x1xf32>, %arg2: tensor<f32>) -> tensor<6x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<6x1xf32>
    return %2 : tensor<6x1xf32>
  }
}
