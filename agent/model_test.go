package agent

// testModel is the model name the test agents send and log.
const testModel = "test-model"
