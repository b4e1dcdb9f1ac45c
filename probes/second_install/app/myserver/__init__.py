"""An application that vendors DeepGEMM, like vLLM."""
