@ingestion
Feature: Ingestion
  Metadata is written by sending a proposal that upserts one aspect of one entity to the
  ingestion endpoint, with a personal access token. The token's user needs EDIT_ENTITY on
  that entity; then the aspect is stored and reads back at once through both entity paths.
  Without it the proposal is refused with 403 and nothing is stored.

  Background:
    Given Ann holds a personal access token

  @smoke
  Scenario: Someone granted EDIT_ENTITY ingests a dataset's description
    Given Ann is granted EDIT_ENTITY
    When Ann ingests a description for a new dataset
    Then the answer names the dataset
    And the dataset's description reads back through the metadata service's entity path
    And the dataset's description reads back through the frontend's entity path

  @core
  Scenario: Someone granted EDIT_ENTITY on one dataset ingests its description
    Given Ann is granted EDIT_ENTITY on a new dataset only
    When Ann ingests a description for that dataset
    Then the answer names the dataset
    And the dataset's description reads back through the metadata service's entity path

  @core
  Scenario: Someone granted EDIT_ENTITY on one dataset cannot ingest for another
    Given Ann is granted EDIT_ENTITY on a new dataset only
    When Ann ingests a description for another new dataset
    Then the answer has status 403
    And nothing was stored for the dataset

  @core
  Scenario: Someone not granted EDIT_ENTITY cannot ingest
    When Ann ingests a description for a new dataset
    Then the answer has status 403
    And nothing was stored for the dataset

  @smoke
  Scenario: Ingestion clients can check the server without a token
    When someone without a token reads the server configuration
    Then the configuration says the server takes ingestion from DataHub's own clients
