// transformer_grad: a transformer block's gradient (jax.grad): causal and padding-masked attention, layer norm, a GELU MLP, a squared loss (conformance/programs/sources.py, jax 0.10.2)
module @jit_transformer_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8x8xf32>, %arg4: tensor<8x8xf32>, %arg5: tensor<8x16xf32>, %arg6: tensor<16x8xf32>, %arg7: tensor<8xf32>, %arg8: tensor<8xf32>, %arg9: tensor<1xi32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1][0]"}, tensor<8x8xf32> {jax.result_info = "result[1][1]"}, tensor<8x8xf32> {jax.result_info = "result[1][2]"}, tensor<8x8xf32> {jax.result_info = "result[1][3]"}, tensor<8x16xf32> {jax.result_info = "result[1][4]"}, tensor<16x8xf32> {jax.result_info = "result[1][5]"}, tensor<8xf32> {jax.result_info = "result[1][6]"}, tensor<8xf32> {jax.result_info = "result[1][7]"}) {
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
    %10 = stablehlo.iota dim = 0 : tensor<6xi32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<6xi32>) -> tensor<1x6xi32>
    %12 = stablehlo.reshape %arg9 : (tensor<1xi32>) -> tensor<i32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<i32>) -> tensor<1x6xi32>
    %14 = stablehlo.compare LT, %11, %13, SIGNED : (tensor<1x6xi32>, tensor<1x6xi32>) -> tensor<1x6xi1>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<1x6xi1>) -> tensor<6x6xi1>
    %16 = stablehlo.and %9, %15 : tensor<6x6xi1>
    %cst_0 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %17 = call @_where(%16, %7, %cst_0) : (tensor<6x6xi1>, tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %18 = stablehlo.reduce(%17 init: %cst_1) applies stablehlo.maximum across dimensions = [1] : (tensor<6x6xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %20 = stablehlo.maximum %19, %18 : tensor<6xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x6xf32>
    %23 = stablehlo.subtract %17, %22 : tensor<6x6xf32>
    %24 = stablehlo.exponential %23 : tensor<6x6xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<6x6xf32>, tensor<f32>) -> tensor<6xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x6xf32>
    %28 = stablehlo.divide %24, %27 : tensor<6x6xf32>
    %29 = stablehlo.multiply %26, %26 : tensor<6x1xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %31 = stablehlo.divide %30, %29 : tensor<6x1xf32>
    %32 = stablehlo.dot_general %28, %2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %33 = stablehlo.dot_general %32, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x8xf32>) -> tensor<6x8xf32>
    %34 = stablehlo.add %arg0, %33 : tensor<6x8xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.reduce(%34 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_6 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %38 = stablehlo.divide %36, %37 : tensor<6x1xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %40 = stablehlo.subtract %34, %39 : tensor<6x8xf32>
    %41 = stablehlo.broadcast_in_dim %38, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %42 = stablehlo.subtract %34, %41 : tensor<6x8xf32>
    %43 = stablehlo.multiply %42, %42 : tensor<6x8xf32>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %45 = stablehlo.multiply %44, %42 : tensor<6x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%43 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_9 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %49 = stablehlo.divide %47, %48 : tensor<6x1xf32>
    %cst_10 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %51 = stablehlo.add %49, %50 : tensor<6x1xf32>
    %52 = stablehlo.rsqrt %51 : tensor<6x1xf32>
    %53 = stablehlo.divide %52, %51 : tensor<6x1xf32>
    %cst_11 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %55 = stablehlo.multiply %54, %53 : tensor<6x1xf32>
    %56 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %57 = stablehlo.multiply %40, %56 : tensor<6x8xf32>
    %58 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %59 = stablehlo.broadcast_in_dim %58, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<6x8xf32>
    %60 = stablehlo.multiply %57, %59 : tensor<6x8xf32>
    %61 = stablehlo.broadcast_in_dim %arg8, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<6x8xf32>
    %63 = stablehlo.add %60, %62 : tensor<6x8xf32>
    %64 = stablehlo.dot_general %63, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x16xf32>) -> tensor<6x16xf32>
    %65 = stablehlo.multiply %64, %64 : tensor<6x16xf32>
    %66 = stablehlo.multiply %65, %64 : tensor<6x16xf32>
    %67 = stablehlo.multiply %64, %64 : tensor<6x16xf32>
    %cst_12 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %69 = stablehlo.multiply %68, %67 : tensor<6x16xf32>
    %cst_13 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %71 = stablehlo.multiply %70, %66 : tensor<6x16xf32>
    %72 = stablehlo.add %64, %71 : tensor<6x16xf32>
    %cst_14 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %73 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %74 = stablehlo.multiply %73, %72 : tensor<6x16xf32>
    %75 = stablehlo.tanh %74 : tensor<6x16xf32>
    %cst_15 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %77 = stablehlo.subtract %76, %75 : tensor<6x16xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %79 = stablehlo.add %78, %75 : tensor<6x16xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %81 = stablehlo.multiply %80, %79 : tensor<6x16xf32>
    %82 = stablehlo.multiply %64, %81 : tensor<6x16xf32>
    %83 = stablehlo.dot_general %82, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<16x8xf32>) -> tensor<6x8xf32>
    %84 = stablehlo.add %63, %83 : tensor<6x8xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %85 = stablehlo.reduce(%84 init: %cst_18) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %86 = stablehlo.broadcast_in_dim %85, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_19 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %88 = stablehlo.divide %86, %87 : tensor<6x1xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %90 = stablehlo.subtract %84, %89 : tensor<6x8xf32>
    %91 = stablehlo.broadcast_in_dim %88, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %92 = stablehlo.subtract %84, %91 : tensor<6x8xf32>
    %93 = stablehlo.multiply %92, %92 : tensor<6x8xf32>
    %cst_20 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %95 = stablehlo.multiply %94, %92 : tensor<6x8xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %96 = stablehlo.reduce(%93 init: %cst_21) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %97 = stablehlo.broadcast_in_dim %96, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_22 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %99 = stablehlo.divide %97, %98 : tensor<6x1xf32>
    %cst_23 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %101 = stablehlo.add %99, %100 : tensor<6x1xf32>
    %102 = stablehlo.rsqrt %101 : tensor<6x1xf32>
    %103 = stablehlo.divide %102, %101 : tensor<6x1xf32>
    %cst_24 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %105 = stablehlo.multiply %104, %103 : tensor<6x1xf32>
    %106 = stablehlo.broadcast_in_dim %102, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %107 = stablehlo.multiply %90, %106 : tensor<6x8xf32>
    %108 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %109 = stablehlo.broadcast_in_dim %108, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<6x8xf32>
    %110 = stablehlo.multiply %107, %109 : tensor<6x8xf32>
    %111 = stablehlo.broadcast_in_dim %arg8, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %112 = stablehlo.broadcast_in_dim %111, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<6x8xf32>
    %113 = stablehlo.add %110, %112 : tensor<6x8xf32>
    %114 = stablehlo.subtract %113, %arg0 : tensor<6x8xf32>
    %115 = stablehlo.multiply %114, %114 : tensor<6x8xf32>
    %cst_25 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %117 = stablehlo.multiply %116, %114 : tensor<6x8xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.reduce(%115 init: %cst_26) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_27 = stablehlo.constant dense<4.800000e+01> : tensor<f32>
    %119 = stablehlo.divide %118, %cst_27 : tensor<f32>
    %cst_28 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_29 = stablehlo.constant dense<4.800000e+01> : tensor<f32>
    %120 = stablehlo.divide %cst_28, %cst_29 : tensor<f32>
    %121 = stablehlo.broadcast_in_dim %120, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %122 = stablehlo.multiply %121, %117 : tensor<6x8xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %123 = stablehlo.reduce(%122 init: %cst_30) applies stablehlo.add across dimensions = [0] : (tensor<6x8xf32>, tensor<f32>) -> tensor<8xf32>
    %124 = stablehlo.reshape %123 : (tensor<8xf32>) -> tensor<1x8xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %125 = stablehlo.reduce(%124 init: %cst_31) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %126 = stablehlo.multiply %107, %122 : tensor<6x8xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %127 = stablehlo.reduce(%126 init: %cst_32) applies stablehlo.add across dimensions = [0] : (tensor<6x8xf32>, tensor<f32>) -> tensor<8xf32>
    %128 = stablehlo.reshape %127 : (tensor<8xf32>) -> tensor<1x8xf32>
    %129 = stablehlo.broadcast_in_dim %108, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<6x8xf32>
    %130 = stablehlo.multiply %122, %129 : tensor<6x8xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %131 = stablehlo.reduce(%128 init: %cst_33) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %132 = stablehlo.multiply %90, %130 : tensor<6x8xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %133 = stablehlo.reduce(%132 init: %cst_34) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %134 = stablehlo.reshape %133 : (tensor<6xf32>) -> tensor<6x1xf32>
    %135 = stablehlo.broadcast_in_dim %102, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %136 = stablehlo.multiply %130, %135 : tensor<6x8xf32>
    %137 = stablehlo.multiply %134, %105 : tensor<6x1xf32>
    %cst_35 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %139 = stablehlo.divide %137, %138 : tensor<6x1xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %140 = stablehlo.reduce(%139 init: %cst_36) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %141 = stablehlo.broadcast_in_dim %140, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
    %142 = stablehlo.multiply %141, %95 : tensor<6x8xf32>
    %143 = stablehlo.negate %142 : tensor<6x8xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %144 = stablehlo.reduce(%143 init: %cst_37) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %145 = stablehlo.reshape %144 : (tensor<6xf32>) -> tensor<6x1xf32>
    %146 = stablehlo.negate %136 : tensor<6x8xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %147 = stablehlo.reduce(%146 init: %cst_38) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %148 = stablehlo.reshape %147 : (tensor<6xf32>) -> tensor<6x1xf32>
    %149 = stablehlo.add %142, %136 : tensor<6x8xf32>
    %150 = stablehlo.add %145, %148 : tensor<6x1xf32>
    %cst_39 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %151 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %152 = stablehlo.divide %150, %151 : tensor<6x1xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %153 = stablehlo.reduce(%152 init: %cst_40) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %154 = stablehlo.broadcast_in_dim %153, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
    %155 = stablehlo.add %149, %154 : tensor<6x8xf32>
    %156 = stablehlo.dot_general %155, %82, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<6x16xf32>) -> tensor<8x16xf32>
    %157 = stablehlo.transpose %156, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %158 = stablehlo.dot_general %155, %arg6, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<16x8xf32>) -> tensor<6x16xf32>
    %159 = stablehlo.multiply %64, %158 : tensor<6x16xf32>
    %160 = stablehlo.multiply %158, %81 : tensor<6x16xf32>
    %cst_41 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %161 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %162 = stablehlo.multiply %161, %159 : tensor<6x16xf32>
    %163 = stablehlo.multiply %162, %77 : tensor<6x16xf32>
    %164 = stablehlo.multiply %163, %75 : tensor<6x16xf32>
    %165 = stablehlo.add %163, %164 : tensor<6x16xf32>
    %cst_42 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %166 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %167 = stablehlo.multiply %166, %165 : tensor<6x16xf32>
    %168 = stablehlo.add %160, %167 : tensor<6x16xf32>
    %cst_43 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %170 = stablehlo.multiply %169, %167 : tensor<6x16xf32>
    %171 = stablehlo.multiply %170, %69 : tensor<6x16xf32>
    %172 = stablehlo.add %168, %171 : tensor<6x16xf32>
    %173 = stablehlo.dot_general %172, %63, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<6x8xf32>) -> tensor<16x8xf32>
    %174 = stablehlo.transpose %173, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %175 = stablehlo.dot_general %172, %arg5, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<8x16xf32>) -> tensor<6x8xf32>
    %176 = stablehlo.add %155, %175 : tensor<6x8xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %177 = stablehlo.reduce(%176 init: %cst_44) applies stablehlo.add across dimensions = [0] : (tensor<6x8xf32>, tensor<f32>) -> tensor<8xf32>
    %178 = stablehlo.reshape %177 : (tensor<8xf32>) -> tensor<1x8xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %179 = stablehlo.reduce(%178 init: %cst_45) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %180 = stablehlo.add %125, %179 : tensor<8xf32>
    %181 = stablehlo.multiply %57, %176 : tensor<6x8xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %182 = stablehlo.reduce(%181 init: %cst_46) applies stablehlo.add across dimensions = [0] : (tensor<6x8xf32>, tensor<f32>) -> tensor<8xf32>
    %183 = stablehlo.reshape %182 : (tensor<8xf32>) -> tensor<1x8xf32>
    %184 = stablehlo.broadcast_in_dim %58, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<6x8xf32>
    %185 = stablehlo.multiply %176, %184 : tensor<6x8xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %186 = stablehlo.reduce(%183 init: %cst_47) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %187 = stablehlo.add %131, %186 : tensor<8xf32>
    %188 = stablehlo.multiply %40, %185 : tensor<6x8xf32>
    %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %189 = stablehlo.reduce(%188 init: %cst_48) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %190 = stablehlo.reshape %189 : (tensor<6xf32>) -> tensor<6x1xf32>
    %191 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x8xf32>
    %192 = stablehlo.multiply %185, %191 : tensor<6x8xf32>
    %193 = stablehlo.multiply %190, %55 : tensor<6x1xf32>
    %cst_49 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %194 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %195 = stablehlo.divide %193, %194 : tensor<6x1xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %196 = stablehlo.reduce(%195 init: %cst_50) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %197 = stablehlo.broadcast_in_dim %196, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
    %198 = stablehlo.multiply %197, %45 : tensor<6x8xf32>
    %199 = stablehlo.negate %198 : tensor<6x8xf32>
    %cst_51 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %200 = stablehlo.reduce(%199 init: %cst_51) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %201 = stablehlo.reshape %200 : (tensor<6xf32>) -> tensor<6x1xf32>
    %202 = stablehlo.negate %192 : tensor<6x8xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %203 = stablehlo.reduce(%202 init: %cst_52) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %204 = stablehlo.reshape %203 : (tensor<6xf32>) -> tensor<6x1xf32>
    %205 = stablehlo.add %198, %192 : tensor<6x8xf32>
    %206 = stablehlo.add %201, %204 : tensor<6x1xf32>
    %cst_53 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %207 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %208 = stablehlo.divide %206, %207 : tensor<6x1xf32>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %209 = stablehlo.reduce(%208 init: %cst_54) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %210 = stablehlo.broadcast_in_dim %209, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
    %211 = stablehlo.add %205, %210 : tensor<6x8xf32>
    %212 = stablehlo.dot_general %211, %32, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<8x8xf32>
    %213 = stablehlo.transpose %212, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %214 = stablehlo.dot_general %211, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x8xf32>) -> tensor<6x8xf32>
    %215 = stablehlo.dot_general %214, %28, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<6x6xf32>) -> tensor<8x6xf32>
    %216 = stablehlo.transpose %215, dims = [1, 0] : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %217 = stablehlo.dot_general %214, %2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x6xf32>
    %218 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x6xf32>
    %219 = stablehlo.multiply %217, %218 : tensor<6x6xf32>
    %220 = stablehlo.multiply %219, %24 : tensor<6x6xf32>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %221 = stablehlo.reduce(%220 init: %cst_55) applies stablehlo.add across dimensions = [1] : (tensor<6x6xf32>, tensor<f32>) -> tensor<6xf32>
    %222 = stablehlo.reshape %221 : (tensor<6xf32>) -> tensor<6x1xf32>
    %223 = stablehlo.negate %222 : tensor<6x1xf32>
    %224 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x6xf32>
    %225 = stablehlo.divide %217, %224 : tensor<6x6xf32>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %226 = stablehlo.reduce(%223 init: %cst_56) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %227 = stablehlo.broadcast_in_dim %226, dims = [0] : (tensor<6xf32>) -> tensor<6x6xf32>
    %228 = stablehlo.add %225, %227 : tensor<6x6xf32>
    %229 = stablehlo.multiply %228, %24 : tensor<6x6xf32>
    %230 = call @_where_0(%16, %229) : (tensor<6x6xi1>, tensor<6x6xf32>) -> tensor<6x6xf32>
    %231 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %232 = stablehlo.divide %230, %231 : tensor<6x6xf32>
    %233 = stablehlo.dot_general %232, %0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %234 = stablehlo.transpose %233, dims = [1, 0] : (tensor<6x8xf32>) -> tensor<8x6xf32>
    %235 = stablehlo.dot_general %232, %3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x6xf32>, tensor<8x6xf32>) -> tensor<6x8xf32>
    %236 = stablehlo.transpose %234, dims = [1, 0] : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %237 = stablehlo.dot_general %216, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<8x8xf32>
    %238 = stablehlo.transpose %237, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %239 = stablehlo.dot_general %236, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<8x8xf32>
    %240 = stablehlo.transpose %239, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %241 = stablehlo.dot_general %235, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<8x8xf32>
    %242 = stablehlo.transpose %241, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %119, %242, %240, %238, %213, %174, %157, %187, %180 : tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x16xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>
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
  func.func private @_where_0(%arg0: tensor<6x6xi1>, %arg1: tensor<6x6xf32>) -> tensor<6x6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<6x6xi1>, tensor<6x6xf32>
    return %1 : tensor<6x6xf32>
  }
}
