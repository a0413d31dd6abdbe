@cap:ingestion
Feature: Ingestion runs, as `datahub ingest` makes them
  `datahub ingest` sends what its source reads to the metadata service through its
  datahub-rest sink, in batches of proposals sent for asynchronous ingestion, and with
  them a report of the run: the ingestion source that ran (an entity of type
  dataHubIngestionSource) and the run itself (a dataHubExecutionRequest), whose input is
  sent when the run starts and whose result travels in the last batch. The run succeeds
  when every batch is taken. A source with stateful ingestion reads, when it starts, the
  checkpoint its pipeline's last run committed (a timeseries aspect of a data job), marks
  removed what that run ingested and this one did not, and commits its own checkpoint.

  DataHub's SDK also sends an entity whole, with all its aspects (emit_mce); and when it
  writes for asynchronous ingestion through OpenAPI and is asked to wait, it waits on the
  write's trace: the write is answered with a traceparent header, and the SDK asks after
  that trace until nothing the write made is pending.

  Background:
    Given Ann holds a personal access token

  @id:runs-01 @must @smoke
  Scenario Outline: A datahub ingest run through the <tier> is taken whole, its report with it
    Given Ann is granted EDIT_ENTITY
    When Ann runs datahub ingest of a file of records through the <tier>
    Then every request of the run is acknowledged
    And every record of the run reads back
    And the run's report reads back, saying the run succeeded

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:runs-02 @must @core
  Scenario: A run by someone granted EDIT_ENTITY on datasets only is refused whole, for its report is not a dataset
    Given Ann is granted EDIT_ENTITY on datasets
    When Ann runs datahub ingest of a file of datasets through the metadata service
    Then the run's batch is refused as unauthorized
    And no record of the run was stored

  @id:runs-03 @must @core
  Scenario: A second stateful run reads the checkpoint the first committed
    Given Ann is granted EDIT_ENTITY
    And Ann has run a stateful ingestion of two datasets
    When Ann runs the same stateful ingestion again with the first dataset alone
    Then the second run read the first run's checkpoint
    And the dataset the second run left out is marked removed
    And the latest checkpoint of the pipeline is the second run's

  @id:runs-04 @must @core
  Scenario Outline: A dataset emitted whole, as DataHub's SDK emits an MCE, is written through the <tier>
    Given Ann is granted EDIT_ENTITY
    When Ann emits a new dataset whole through the <tier>
    Then the emit is acknowledged
    And each aspect of the emitted dataset reads back, with its key

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:runs-05 @must @core
  Scenario: Someone granted EDIT_ENTITY on tags cannot emit a dataset whole, and nothing of it is stored
    Given Ann is granted EDIT_ENTITY on tags
    When Ann emits a new dataset whole through the metadata service
    Then the answer has status 403

  @id:runs-06 @must @core
  Scenario: A write for asynchronous ingestion through OpenAPI is traced until it is written, as DataHub's SDK waits on it
    Given Ann is granted EDIT_ENTITY
    When Ann writes proposals for two new datasets in one request through OpenAPI for asynchronous ingestion
    Then the write's trace comes to show every aspect it made as written
    And every proposal of the batch reads back

  @id:runs-07 @must @core @exclusive
  Scenario: Someone not allowed to read the datasets a write made is refused its trace
    Given the administrator has written two new datasets for asynchronous ingestion through OpenAPI
    And no policy lets every user read entities
    When Ann asks after the write's trace
    Then the answer has status 403
    And the answer shows nothing of the write

  @id:runs-08 @must @core
  Scenario Outline: A request without a token is refused when it <does> through the <tier>
    When someone without a token <does> through the <tier>
    Then the request is refused as unauthenticated

    Examples:
      | does                       | tier             |
      | emits a dataset whole      | metadata service |
      | emits a dataset whole      | frontend         |
      | asks after a write's trace | metadata service |
      | asks after a write's trace | frontend         |
